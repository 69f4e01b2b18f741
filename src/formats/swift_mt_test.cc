#include "formats/swift_mt.h"

#include <gtest/gtest.h>

#include <string>

#include "api/transaction_json.h"
#include "common/rfc3339.h"
#include "formats/formats_test_util.h"
#include "formats/payment_test_samples.h"

namespace verdict {
namespace {

using testing_util::ReplaceOnce;

TEST(SwiftMtTest, MapsMt103) {
  Result<Transaction> r = DecodeSwiftMt(samples::kMt103);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Transaction& t = *r;
  EXPECT_EQ(t.transaction_id, "8a562c67-ca16-48ba-b074-65581be6f011");
  EXPECT_EQ(FormatRfc3339Micros(t.timestamp_us), "2026-12-02T00:00:00.000000Z");
  EXPECT_EQ(t.amount.ToString(), "9950.50 EUR");
  EXPECT_EQ(t.sender.ref.account, "DE89370400440532013000");
  EXPECT_EQ(t.sender.ref.bank, "COBADEFF");  // 52A, branch XXX dropped
  EXPECT_EQ(t.sender.name, "JOHN SMITH");
  EXPECT_EQ(t.receiver.ref.account, "GB82WEST12345698765432");
  EXPECT_EQ(t.receiver.ref.bank, "NWBKGB2L");  // 57A
  EXPECT_EQ(t.receiver.name, "ACME LTD");
  EXPECT_EQ(t.receiver.country, "GB");  // 59F 3/GB/
  EXPECT_EQ(t.remittance, "INVOICE 4411 ORDER 77");
  EXPECT_EQ(t.type, "transfer");
  const PaymentInfo& p = t.payment;
  EXPECT_EQ(p.message_type, "MT103");
  EXPECT_EQ(p.message_id, "REF-4411");
  EXPECT_EQ(p.settlement_date, "2026-12-02");
  EXPECT_EQ(p.charge_bearer, "SHAR");
  ASSERT_TRUE(p.instructed_amount.has_value());
  EXPECT_EQ(p.instructed_amount->ToString(), "10500.00 USD");
  ASSERT_EQ(p.charges.size(), 1u);
  EXPECT_EQ(p.charges[0].kind, "sender");
  EXPECT_EQ(p.charges[0].amount.ToString(), "2.50 EUR");
  EXPECT_EQ(p.sender_to_receiver, "/INS/CHASUS33");
  ASSERT_EQ(p.agents.size(), 3u);
  EXPECT_EQ(p.agents[0].role, "instructing");
  EXPECT_EQ(p.agents[0].bic, "DEUTDEFF");
  EXPECT_EQ(p.agents[1].bic, "NWBKGB2L");
  EXPECT_EQ(p.agents[2].role, "sender_correspondent");
  EXPECT_EQ(p.agents[2].bic, "CHASUS33");

  // Round trip through the canonical JSON the journal stores.
  TransactionDecoder decoder;
  Result<Transaction> back = decoder.DecodeOne(CanonicalTransactionJson(t));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->amount, t.amount);
  EXPECT_EQ(back->sender.ref.account, t.sender.ref.account);
  EXPECT_EQ(back->receiver.country, t.receiver.country);
  EXPECT_EQ(back->remittance, t.remittance);
  EXPECT_EQ(back->payment, t.payment);
  EXPECT_EQ(CanonicalTransactionJson(*back), CanonicalTransactionJson(t));
}

TEST(SwiftMtTest, MapsMt202CovToTheUnderlyingCustomers) {
  Result<Transaction> r = DecodeSwiftMt(samples::kMt202Cov);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->payment.message_type, "MT202COV");
  EXPECT_EQ(r->amount.ToString(), "10500.00 USD");
  EXPECT_EQ(r->sender.ref.account, "US12345678");
  EXPECT_EQ(r->sender.name, "JOHN SMITH");
  EXPECT_EQ(r->sender.country, "US");
  EXPECT_EQ(r->sender.ref.bank, "CHASUS33");
  EXPECT_EQ(r->receiver.ref.account, "DE89370400440532013000");
  EXPECT_EQ(r->receiver.ref.bank, "DEUTDEFF");  // 58A
  EXPECT_EQ(r->receiver.name, "HANS MUELLER");
  EXPECT_EQ(r->payment.end_to_end_id, "REF-4411");
  EXPECT_EQ(r->remittance, "RENT DEC");
}

TEST(SwiftMtTest, MapsMt202BetweenInstitutions) {
  const std::string mt202 =
      "{1:F01CHASUS33AXXX0000000000}{2:O2021200261202DEUTDEFFAXXX00000000002612021201N}{4:\n"
      ":20:B2B-1\n"
      ":21:REL-9\n"
      ":32A:261202USD5000000,\n"
      ":58A:/12345\n"
      "NWBKGB2L\n"
      "-}";
  Result<Transaction> r = DecodeSwiftMt(mt202);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->payment.message_type, "MT202");
  EXPECT_EQ(r->type, "bank_transfer");
  // Output message: block 2's MIR terminal is the sender, block 1's the receiver.
  EXPECT_EQ(r->sender.ref.account, "DEUTDEFF");
  EXPECT_EQ(r->receiver.ref.account, "12345");
  EXPECT_EQ(r->receiver.ref.bank, "NWBKGB2L");
  EXPECT_EQ(r->transaction_id, "DEUTDEFF/B2B-1");
  EXPECT_EQ(r->payment.end_to_end_id, "REL-9");
}

TEST(SwiftMtTest, FieldErrorsNameTagAndLine) {
  struct Case {
    std::string_view from, to, field, message;
  };
  const Case cases[] = {
      {":32A:261202EUR9950,50", ":32A:261202EUR1000.5.0",
       ":32A:", ":32A: line 4: amount \"1000.5.0\" is not a number"},
      {":32A:261202EUR9950,50", ":32A:261202EUR9950.50", ":32A:",
       ":32A: line 4: amount \"9950.50\" is not a number (SWIFT amounts use a decimal comma, "
       "e.g. 1000,50)"},
      {":32A:261202EUR9950,50", ":32A:261302EUR9950,50",
       ":32A:", ":32A: line 4: value date \"261302\" does not exist"},
      {":32A:261202EUR9950,50", ":32A:261202EUX9950,50",
       ":32A:", ":32A: line 4: currency \"EUX\" is not an ISO 4217 currency code"},
      {":32A:261202EUR9950,50", ":32A:261202EUR9950,505",
       ":32A:", ":32A: line 4: amount \"9950,505\" has more decimals than EUR allows (2)"},
      {":23B:CRED", ":23B:CRXX", ":23B:",
       ":23B: line 3: bank operation code \"CRXX\" is not one of CRED, CRTS, SPAY, SPRI, SSTD"},
      {":52A:COBADEFFXXX", ":52A:COBADE",
       ":52A:", ":52A: line 10: BIC \"COBADE\" must have 8 or 11 characters"},
      {":50K:/DE89370400440532013000", ":50K:/DE89370400440532013001",
       ":50K:", ":50K: line 6: IBAN \"DE89370400440532013001\" has wrong check digits"},
      {":71A:SHA", ":71A:ALL",
       ":71A:", ":71A: line 19: details of charges \"ALL\" is not BEN, OUR or SHA"},
      {"ORDER 77", "ORDER @77",
       ":70:", ":70: line 18: character '@' is not in the SWIFT x character set"},
      {":20:REF-4411", ":20:/REF-4411", ":20:",
       ":20: line 2: reference \"/REF-4411\" must not start or end with '/' or contain '//'"},
      {":71A:SHA\r\n", "", ":71A:", ":71A: line 21: field is required in MT103"},
      {":57A:NWBKGB2L", ":57A:NWBKGB2L\r\n:57A:NWBKGB2L",
       ":57A:", ":57A: line 13: field 57a appears more than once"},
      {":70:INVOICE 4411", ":21:X\r\n:70:INVOICE 4411",
       ":21:", ":21: line 17: field is not part of MT103"},
      {":71F:EUR2,50", ":71F:EUR2,50\r\n:71F:EUR1,00", "", ""},  // 71F repeats
  };
  for (const Case& c : cases) {
    Result<Transaction> r = DecodeSwiftMt(ReplaceOnce(samples::kMt103, c.from, c.to));
    if (c.field.empty()) {
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      continue;
    }
    ASSERT_FALSE(r.ok()) << c.to;
    EXPECT_EQ(r.status().field(), c.field);
    EXPECT_EQ(r.status().message(), c.message);
  }
}

TEST(SwiftMtTest, BlockErrors) {
  struct Case {
    std::string text;
    std::string words;
  };
  const Case cases[] = {
      {"hello", "expected a block"},
      {ReplaceOnce(samples::kMt103, "{1:F01DEUTDEFFAXXX0000000000}", ""), "block 1"},
      {ReplaceOnce(samples::kMt103, "F01DEUTDEFFAXXX0000000000", "F01DEUTDEFFAXXX00000"),
       "25 characters"},
      {ReplaceOnce(samples::kMt103, "I103", "I940"), "MT940 is not accepted"},
      {ReplaceOnce(samples::kMt103, "-}", ""), "not closed"},
      {ReplaceOnce(samples::kMt103, "{121:8a562c67", "{121:9a562c67-"), "UETR"},
      {ReplaceOnce(samples::kMt103, "{2:I103NWBKGB2LXXXXN}{3:", "{3:"), "block 2"},
      {ReplaceOnce(samples::kMt103, ":20:REF-4411", "20:REF-4411"),
       "text must start with a field tag"},
  };
  for (const Case& c : cases) {
    Result<Transaction> r = DecodeSwiftMt(c.text);
    ASSERT_FALSE(r.ok()) << c.words;
    EXPECT_NE(r.status().message().find(c.words), std::string::npos) << r.status().message();
  }
}

// As for ISO 20022: no more charges than the journal reads back.
TEST(SwiftMtTest, ChargesBeyondWhatTheJournalReadsBackAreRefused) {
  std::string many;
  for (size_t i = 0; i < kMaxPaymentListEntries; ++i) many += ":71F:EUR2,50\r\n";
  EXPECT_TRUE(DecodeSwiftMt(ReplaceOnce(samples::kMt103, ":71F:EUR2,50\r\n", many)).ok());
  Result<Transaction> over =
      DecodeSwiftMt(ReplaceOnce(samples::kMt103, ":71F:EUR2,50\r\n", many + ":71G:EUR1,00\r\n"));
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("more than 32 charges"), std::string::npos)
      << over.status().message();
}

TEST(SwiftMtTest, SplitsMessagesAtDollarAndBlockOne) {
  const std::string body = std::string(samples::kMt103) + "\n$\n" +
                           std::string(samples::kMt202Cov) + "\n" + std::string(samples::kMt103) +
                           "\n";
  Result<std::vector<MtChunk>> chunks = SplitMtMessages(body);
  ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
  ASSERT_EQ(chunks->size(), 3u);
  EXPECT_EQ((*chunks)[0].first_line, 1u);
  EXPECT_EQ((*chunks)[1].first_line, 24u);
  EXPECT_EQ((*chunks)[2].first_line, 38u);
  for (const MtChunk& c : *chunks) {
    Result<Transaction> r = DecodeSwiftMt(c.text, c.first_line);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
  }
  // Line numbers of a later message count from the start of the body.
  const std::string bad =
      std::string(samples::kMt103) + "$" +
      ReplaceOnce(samples::kMt103, ":32A:261202EUR9950,50", ":32A:261202EUR1,2,3");
  chunks = SplitMtMessages(bad);
  ASSERT_TRUE(chunks.ok());
  ASSERT_EQ(chunks->size(), 2u);
  Result<Transaction> r = DecodeSwiftMt((*chunks)[1].text, (*chunks)[1].first_line);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), ":32A: line 25: amount \"1,2,3\" is not a number");

  // A message without its closing "-}" does not swallow the ones after it: a line starting
  // with '$' or "{1:" cannot be block 4 text. The first fails alone; the next two decode.
  const std::string unclosed = ReplaceOnce(samples::kMt103, "\n-}", "\n");
  for (const std::string& next :
       {"\n$\n" + std::string(samples::kMt103),
        "\n" + std::string(samples::kMt202Cov) + "\n$\n" + std::string(samples::kMt103)}) {
    const std::string joined = unclosed + next;  // the chunks view it
    chunks = SplitMtMessages(joined);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    ASSERT_GE(chunks->size(), 2u);
    EXPECT_FALSE(DecodeSwiftMt((*chunks)[0].text, (*chunks)[0].first_line).ok());
    for (size_t k = 1; k < chunks->size(); ++k) {
      Result<Transaction> later = DecodeSwiftMt((*chunks)[k].text, (*chunks)[k].first_line);
      EXPECT_TRUE(later.ok()) << later.status().ToString();
    }
  }
  EXPECT_EQ(SplitMtMessages(unclosed + "\n" + std::string(samples::kMt202Cov) + "\n$\n" +
                            std::string(samples::kMt103))
                ->size(),
            3u);

  EXPECT_FALSE(SplitMtMessages("  \n ").ok());
  MtLimits one;
  one.max_messages = 1;
  EXPECT_FALSE(SplitMtMessages(body, one).ok());
}

}  // namespace
}  // namespace verdict
