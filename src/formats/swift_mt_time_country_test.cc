// MT messages as they are: a value date but rarely a time (:13C:), countries only in BICs and
// IBANs. Tests of the timestamp, the parties' countries and the message id that follow from it.
#include <gtest/gtest.h>

#include <string>

#include "common/rfc3339.h"
#include "formats/formats_test_util.h"
#include "formats/payment_message.h"
#include "formats/payment_test_samples.h"
#include "formats/swift_mt.h"

namespace verdict {
namespace {

using testing_util::ReplaceOnce;

// kMt103 with `line` (one field, CRLF included) added after its :20:.
std::string Mt103With(std::string_view line) {
  return ReplaceOnce(samples::kMt103, ":20:REF-4411\r\n", ":20:REF-4411\r\n" + std::string(line));
}

TEST(SwiftMtTimeTest, WithoutTimeIndicationTheTimestampIsTheValueDateAndSaysSo) {
  bool carries_time = true;
  Result<Transaction> r = DecodeSwiftMt(samples::kMt103, 1, {}, &carries_time);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(carries_time);
  EXPECT_EQ(FormatRfc3339Micros(r->timestamp_us), "2026-12-02T00:00:00.000000Z");
}

TEST(SwiftMtTimeTest, SendTimeGivesTheTimestampInUtc) {
  bool carries_time = false;
  Result<Transaction> r =
      DecodeSwiftMt(Mt103With(":13C:/SNDTIME/1245+0100\r\n"), 1, {}, &carries_time);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(carries_time);
  EXPECT_EQ(FormatRfc3339Micros(r->timestamp_us), "2026-12-02T11:45:00.000000Z");
  EXPECT_EQ(r->payment.settlement_date, "2026-12-02");

  // A negative offset late in the day moves the UTC time to the next date.
  r = DecodeSwiftMt(Mt103With(":13C:/SNDTIME/2230-0500\r\n"), 1, {}, &carries_time);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(FormatRfc3339Micros(r->timestamp_us), "2026-12-03T03:30:00.000000Z");
}

TEST(SwiftMtTimeTest, SendTimeOutranksReceiveTimeAndDeadlinesAreNoEventTime) {
  bool carries_time = false;
  Result<Transaction> r = DecodeSwiftMt(
      Mt103With(":13C:/RNCTIME/0900+0000\r\n:13C:/SNDTIME/0815+0000\r\n"), 1, {}, &carries_time);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(FormatRfc3339Micros(r->timestamp_us), "2026-12-02T08:15:00.000000Z");

  r = DecodeSwiftMt(Mt103With(":13C:/RNCTIME/0900+0000\r\n"), 1, {}, &carries_time);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(FormatRfc3339Micros(r->timestamp_us), "2026-12-02T09:00:00.000000Z");

  // TILTIME is a deadline ("debit until"): checked, but not when the payment happened.
  carries_time = true;
  r = DecodeSwiftMt(Mt103With(":13C:/TILTIME/1600+0100\r\n"), 1, {}, &carries_time);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(carries_time);
  EXPECT_EQ(FormatRfc3339Micros(r->timestamp_us), "2026-12-02T00:00:00.000000Z");
}

TEST(SwiftMtTimeTest, BadTimeIndicationsNameTheFieldAndLine) {
  struct Case {
    std::string_view line;
    std::string_view message;
  };
  const Case cases[] = {
      {":13C:SNDTIME/1245+0100\r\n",
       ":13C: line 3: time indication \"SNDTIME/1245+0100\" is not /CODE/HHMM+HHMM (e.g. "
       "/SNDTIME/1245+0100)"},
      {":13C:/SNDTIME/1245.0100\r\n",
       ":13C: line 3: time indication \"/SNDTIME/1245.0100\" is not /CODE/HHMM+HHMM"},
      {":13C:/SNDTIME/2460+0100\r\n",
       ":13C: line 3: time \"2460\" in \"/SNDTIME/2460+0100\" is not HHMM"},
      {":13C:/SNDTIME/1245+1500\r\n",
       ":13C: line 3: UTC offset \"1500\" in \"/SNDTIME/1245+1500\" is not HHMM"},
  };
  for (const Case& c : cases) {
    Result<Transaction> r = DecodeSwiftMt(Mt103With(c.line));
    ASSERT_FALSE(r.ok()) << c.line;
    EXPECT_EQ(r.status().field(), ":13C:");
    EXPECT_EQ(r.status().message(), c.message);
  }
}

TEST(SwiftMtCountryTest, CountriesComeFromIbanThenBicUnlessTheAddressGivesOne) {
  Result<Transaction> r = DecodeSwiftMt(samples::kMt103);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sender.country, "DE");    // IBAN DE89...
  EXPECT_EQ(r->receiver.country, "GB");  // 59F 3/GB/

  // Accounts that are not IBANs: the banks' BICs say where (52A COBADEFF, 57A CHASUS33).
  std::string text = ReplaceOnce(samples::kMt103, ":50K:/DE89370400440532013000", ":50K:/12345678");
  text = ReplaceOnce(text, ":57A:NWBKGB2L", ":57A:BKIDIRTH");
  text = ReplaceOnce(text,
                     ":59F:/GB82WEST12345698765432\r\n1/ACME LTD\r\n2/1 HIGH STREET\r\n"
                     "3/GB/LONDON\r\n",
                     ":59:/998877\r\nACME LTD\r\n");
  r = DecodeSwiftMt(text);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sender.country, "DE");    // 52A COBADEFF
  EXPECT_EQ(r->receiver.country, "IR");  // 57A BKIDIRTH: a corridor rule can see it
}

TEST(SwiftMtCountryTest, InstitutionTransfersTakeTheBanksCountries) {
  const std::string mt202 =
      "{1:F01CHASUS33AXXX0000000000}{2:I202NWBKGB2LXXXXN}{4:\n"
      ":20:B2B-1\n"
      ":21:REL-9\n"
      ":32A:261202USD5000000,\n"
      ":58A:/12345\n"
      "BKIDIRTH\n"
      "-}";
  Result<Transaction> r = DecodeSwiftMt(mt202);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sender.country, "US");
  EXPECT_EQ(r->receiver.country, "IR");
}

TEST(PaymentMessageTimeTest, ReceiptTimeStampsOnlyMessagesWithoutTime) {
  const std::string body = std::string(samples::kMt103) + "\n$\n" +
                           Mt103With(":13C:/SNDTIME/1245+0100\r\n") + "\n$\n" +
                           ReplaceOnce(samples::kMt103, "9950,50", "9950,5,0");
  Result<DecodedPaymentMessage> decoded =
      DecodePaymentMessageDetailed("application/x-swift-mt", "", body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->transactions.size(), 3u);
  EXPECT_EQ(decoded->dated_only, (std::vector<bool>{true, false, false}));
  const int64_t received_us = *ParseRfc3339Micros("2026-12-01T16:20:05.5Z");
  StampTimeOfReceipt(*decoded, received_us);
  EXPECT_EQ(decoded->transactions[0]->timestamp_us, received_us);
  EXPECT_EQ(FormatRfc3339Micros(decoded->transactions[1]->timestamp_us),
            "2026-12-02T11:45:00.000000Z");
  EXPECT_FALSE(decoded->transactions[2].ok());
  EXPECT_EQ(decoded->dated_only, (std::vector<bool>{false, false, false}));
}

TEST(PaymentMessageTimeTest, MessageIdIsTheReferenceOfTheOneMtMessage) {
  Result<DecodedPaymentMessage> one =
      DecodePaymentMessageDetailed("application/x-swift-mt", "", samples::kMt103);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->message_id, "REF-4411");
  Result<DecodedPaymentMessage> xml =
      DecodePaymentMessageDetailed("application/xml", "", samples::kPacs008);
  ASSERT_TRUE(xml.ok()) << xml.status().ToString();
  EXPECT_EQ(xml->message_id, xml->iso.message_id);
  EXPECT_FALSE(xml->message_id.empty());
}

}  // namespace
}  // namespace verdict
