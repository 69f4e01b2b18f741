// Stream messages through the HTTP API's decoders: content types declared or recognized.
#include "ingest/message_decoding.h"

#include <gtest/gtest.h>

namespace verdict::ingest {
namespace {

constexpr const char* kOne =
    R"({"transaction_id":"t1","timestamp":"2026-12-02T10:00:00Z","amount":"10.00",)"
    R"("currency":"USD","sender":{"account":"S1"},"receiver":{"account":"R1"}})";

TEST(MessageDecodingTest, AJsonTransactionWithOrWithoutAContentType) {
  TransactionDecoder decoder;
  for (const char* type : {"", "application/json", "application/json; charset=utf-8"}) {
    auto items = DecodeStreamMessage(decoder, type, kOne, 0, 10);
    ASSERT_TRUE(items.ok()) << type << ": " << items.status().ToString();
    ASSERT_EQ(items->size(), 1u);
    ASSERT_TRUE((*items)[0].ok());
    EXPECT_EQ((*items)[0]->transaction_id, "t1");
  }
}

TEST(MessageDecodingTest, ABatchEnvelopeYieldsOneResultPerItem) {
  TransactionDecoder decoder;
  const std::string batch = std::string(R"( { "transactions": [)") + kOne + R"(, {"x": 1}]})";
  auto items = DecodeStreamMessage(decoder, "", batch, 0, 10);
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  ASSERT_EQ(items->size(), 2u);
  EXPECT_TRUE((*items)[0].ok());
  EXPECT_FALSE((*items)[1].ok());
}

TEST(MessageDecodingTest, BadJsonIsAnErrorNamingTheField) {
  TransactionDecoder decoder;
  auto items = DecodeStreamMessage(
      decoder, "", R"({"transaction_id":"t1","amount":"ten","currency":"USD"})", 0, 10);
  ASSERT_FALSE(items.ok());
  EXPECT_FALSE(items.status().field().empty()) << items.status().ToString();
  auto garbage = DecodeStreamMessage(decoder, "", "\x01\x02 not json", 0, 10);
  EXPECT_FALSE(garbage.ok());
}

TEST(MessageDecodingTest, MtIsRecognizedAndDecodedAsOverHttp) {
  TransactionDecoder decoder;
  const std::string mt202 =
      "{1:F01CHASUS33AXXX0000000000}{2:O2021200261202DEUTDEFFAXXX00000000002612021201N}{4:\n"
      ":20:B2B-1\n"
      ":21:REL-9\n"
      ":32A:261202USD5000000,\n"
      ":58A:/12345\n"
      "NWBKGB2L\n"
      "-}";
  for (const char* type : {"", "application/x-swift-mt", "text/plain; format=swift-mt"}) {
    auto items = DecodeStreamMessage(decoder, type, mt202, 0, 10);
    ASSERT_TRUE(items.ok()) << type << ": " << items.status().ToString();
    ASSERT_EQ(items->size(), 1u);
    ASSERT_TRUE((*items)[0].ok()) << (*items)[0].status().ToString();
    EXPECT_EQ((*items)[0]->payment.message_type, "MT202");
  }
}

TEST(MessageDecodingTest, XmlGoesToTheIsoDecoder) {
  TransactionDecoder decoder;
  auto xml = DecodeStreamMessage(decoder, "", "<Document><nonsense/></Document>", 0, 10);
  ASSERT_FALSE(xml.ok());
  // Not read as JSON.
  EXPECT_EQ(xml.status().message().find("JSON"), std::string::npos) << xml.status().ToString();
}

TEST(MessageDecodingTest, AnUnknownContentTypeIsRefused) {
  TransactionDecoder decoder;
  auto items = DecodeStreamMessage(decoder, "application/octet-stream", kOne, 0, 10);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.status().field(), "content-type");
}

}  // namespace
}  // namespace verdict::ingest
