#include "api/transaction_json.h"

#include <gtest/gtest.h>

#include <string>

namespace verdict {
namespace {

constexpr const char* kGood = R"({
  "transaction_id": "tx-0001",
  "timestamp": "2026-12-02T10:15:30.123Z",
  "amount": "9950.00",
  "currency": "USD",
  "sender":   {"account": "ACC-1", "bank": "BANKUS33", "country": "US", "name": "John Smith"},
  "receiver": {"account": "ACC-2", "bank": "BANKGB22", "country": "GB", "name": "Acme Ltd"},
  "channel": "wire",
  "type": "transfer",
  "remittance": "invoice 4411",
  "priority": "standard",
  "deadline_ms": 200,
  "metadata": {"switch_ref": "A1"}
})";

// The good transaction with one top-level member replaced (or removed when value is empty).
std::string With(const std::string& key, const std::string& value) {
  std::string json = kGood;
  size_t start = json.find("\"" + key + "\":");
  EXPECT_NE(start, std::string::npos) << key;
  size_t end = json.find('\n', start);
  std::string line = json.substr(start, end - start);
  bool trailing_comma = !line.empty() && line.back() == ',';
  std::string replacement =
      value.empty() ? "" : "\"" + key + "\": " + value + (trailing_comma ? "," : "");
  json.replace(start, end - start, replacement);
  if (value.empty() && !trailing_comma) {
    // Removed the last member: drop the comma before it.
    size_t comma = json.rfind(',', start);
    json.erase(comma, 1);
  }
  return json;
}

struct BadCase {
  std::string name;
  std::string body;
  std::string field;
  std::string message_part;
};

class TransactionJsonTest : public ::testing::Test {
 protected:
  TransactionDecoder decoder_;
};

TEST_F(TransactionJsonTest, DecodesEveryField) {
  Result<Transaction> txn = decoder_.DecodeOne(kGood);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  EXPECT_EQ(txn->transaction_id, "tx-0001");
  EXPECT_EQ(txn->timestamp_us, 1796206530123000);  // 2026-12-02T10:15:30.123Z
  EXPECT_EQ(txn->amount.minor_units(), 995000);
  EXPECT_EQ(txn->amount.currency().code, "USD");
  EXPECT_EQ(txn->sender.ref.account, "ACC-1");
  EXPECT_EQ(txn->sender.ref.bank, "BANKUS33");
  EXPECT_EQ(txn->sender.country, "US");
  EXPECT_EQ(txn->sender.name, "John Smith");
  EXPECT_EQ(txn->receiver.ref.account, "ACC-2");
  EXPECT_EQ(txn->receiver.country, "GB");
  EXPECT_EQ(txn->channel, "wire");
  EXPECT_EQ(txn->type, "transfer");
  EXPECT_EQ(txn->remittance, "invoice 4411");
  EXPECT_EQ(txn->priority, Priority::kStandard);
  ASSERT_TRUE(txn->deadline_ms.has_value());
  EXPECT_EQ(*txn->deadline_ms, 200);
  ASSERT_EQ(txn->metadata.size(), 1u);
  EXPECT_EQ(txn->metadata[0].first, "switch_ref");
}

TEST_F(TransactionJsonTest, AcceptsMinimalTransactionAndNumericAmounts) {
  const std::string minimal = R"({"transaction_id":"t","timestamp":"2026-01-01T00:00:00Z",
    "amount":9950.5,"currency":"USD","sender":{"account":"A"},"receiver":{"account":"B"}})";
  Result<Transaction> txn = decoder_.DecodeOne(minimal);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  EXPECT_EQ(txn->amount.minor_units(), 995050);
  EXPECT_EQ(txn->priority, Priority::kStandard);
  EXPECT_FALSE(txn->deadline_ms.has_value());

  Result<Transaction> integer = decoder_.DecodeOne(With("amount", "12"));
  ASSERT_TRUE(integer.ok()) << integer.status().ToString();
  EXPECT_EQ(integer->amount.minor_units(), 1200);
}

TEST_F(TransactionJsonTest, NormalizesOffsetsToUtc) {
  Result<Transaction> a =
      decoder_.DecodeOne(With("timestamp", R"("2026-12-02T11:15:30.123+01:00")"));
  Result<Transaction> b = decoder_.DecodeOne(kGood);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->timestamp_us, b->timestamp_us);
}

TEST_F(TransactionJsonTest, HonoursCurrencyMinorUnits) {
  Result<Transaction> cents_in_yen = decoder_.DecodeOne(With("currency", R"("JPY")"));
  ASSERT_FALSE(cents_in_yen.ok()) << "9950.00 has two fraction digits; JPY has none";
  EXPECT_EQ(cents_in_yen.status().field(), "amount");
  std::string jpy = With("amount", R"("9950")");
  jpy = jpy.replace(jpy.find("\"USD\""), 5, "\"JPY\"");
  Result<Transaction> txn = decoder_.DecodeOne(jpy);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  EXPECT_EQ(txn->amount.minor_units(), 9950);
  std::string kwd = With("amount", R"("1.234")");
  kwd = kwd.replace(kwd.find("\"USD\""), 5, "\"KWD\"");
  txn = decoder_.DecodeOne(kwd);
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  EXPECT_EQ(txn->amount.minor_units(), 1234);
}

TEST_F(TransactionJsonTest, RefusesEveryBadInputWithItsField) {
  const std::string big_name(141, 'x');
  const std::vector<BadCase> cases = {
      {"empty body", "", "", "empty"},
      {"invalid json", "{\"transaction_id\": ", "", "not valid JSON"},
      {"array", "[1,2]", "", "object"},
      {"missing transaction_id", With("transaction_id", ""), "transaction_id", "required"},
      {"negative amount", With("amount", "-5"), "amount", "positive"},
      {"negative amount string", With("amount", R"("-5")"), "amount", "positive"},
      {"zero amount", With("amount", "0"), "amount", "positive"},
      {"zero amount string", With("amount", R"("0.00")"), "amount", "positive"},
      {"text amount", With("amount", R"("abc")"), "amount", "plain decimal"},
      {"exponent amount", With("amount", R"("1e400")"), "amount", "plain decimal"},
      {"too many fraction digits", With("amount", R"("10.001")"), "amount", "fraction digits"},
      {"overflowing amount", With("amount", R"("99999999999999999999")"), "amount",
       "integer digits"},
      {"boolean amount", With("amount", "true"), "amount", "a decimal string or a number"},
      {"bad currency", With("currency", R"("XXXX")"), "currency", "ISO 4217"},
      {"lower-case currency", With("currency", R"("usd")"), "currency", "ISO 4217"},
      {"bad timestamp", With("timestamp", R"("yesterday")"), "timestamp", "RFC 3339"},
      {"timestamp without zone", With("timestamp", R"("2026-12-02T10:15:30")"), "timestamp",
       "offset"},
      {"February 30", With("timestamp", R"("2026-02-30T10:15:30Z")"), "timestamp", "no such date"},
      {"year 0 in UTC", With("timestamp", R"("0001-01-01T00:00:00+00:01")"), "timestamp",
       "0001 to 9999"},
      {"missing sender", With("sender", ""), "sender", "required"},
      {"sender not an object", With("sender", R"("ACC-1")"), "sender", "an object"},
      {"sender without account", With("sender", R"({"bank":"B"})"), "sender.account", "required"},
      {"bad country", With("sender", R"({"account":"A","country":"ZZ"})"), "sender.country",
       "ISO 3166"},
      {"unknown nested field", With("receiver", R"({"account":"A","iban":"x"})"), "receiver.iban",
       "unknown field"},
      {"account with spaces", With("receiver", R"({"account":"A B"})"), "receiver.account",
       "visible ASCII"},
      {"name too long", With("sender", R"({"account":"A","name":")" + big_name + R"("})"),
       "sender.name", "longer than 140"},
      {"unknown top-level field", With("channel", R"("wire", "colour": "red")"), "colour",
       "unknown field 'colour'"},
      {"bad priority", With("priority", R"("urgent")"), "priority", "realtime, standard, bulk"},
      {"deadline too long", With("deadline_ms", "999999"), "deadline_ms", "between"},
      {"deadline not integer", With("deadline_ms", "1.5"), "deadline_ms", "integer"},
      {"metadata not strings", With("metadata", R"({"a": 1})"), "metadata.a", "string"},
      {"duplicate key", With("channel", R"("wire", "channel": "card")"), "channel", "duplicate"},
      {"control characters", With("remittance", R"("a\u0001b")"), "remittance", "control"},
  };
  for (const BadCase& c : cases) {
    Result<Transaction> txn = decoder_.DecodeOne(c.body);
    ASSERT_FALSE(txn.ok()) << c.name;
    EXPECT_EQ(txn.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_EQ(txn.status().field(), c.field) << c.name << ": " << txn.status().ToString();
    EXPECT_NE(txn.status().message().find(c.message_part), std::string::npos)
        << c.name << ": " << txn.status().message();
  }
}

TEST_F(TransactionJsonTest, BatchReportsEachBadItemSeparately) {
  std::string bad = With("amount", R"("abc")");
  std::string body = std::string("{\"transactions\": [") + kGood + "," + bad + "," + kGood + "]}";
  auto items = decoder_.DecodeBatch(body, 1000);
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  ASSERT_EQ(items->size(), 3u);
  EXPECT_TRUE((*items)[0].ok());
  ASSERT_FALSE((*items)[1].ok());
  EXPECT_EQ((*items)[1].status().field(), "transactions[1].amount");
  EXPECT_TRUE((*items)[2].ok());
}

TEST_F(TransactionJsonTest, BatchEnvelopeErrors) {
  std::string items;
  for (int i = 0; i < 1001; ++i) items += std::string(i ? "," : "") + "{}";
  auto too_many = decoder_.DecodeBatch("{\"transactions\":[" + items + "]}", 1000);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().field(), "transactions");
  EXPECT_NE(too_many.status().message().find("at most 1000"), std::string::npos);

  EXPECT_EQ(decoder_.DecodeBatch("{}", 1000).status().field(), "transactions");
  EXPECT_EQ(decoder_.DecodeBatch("{\"transactions\":[]}", 1000).status().field(), "transactions");
  EXPECT_EQ(decoder_.DecodeBatch("{\"transactions\":{}}", 1000).status().field(), "transactions");
  EXPECT_EQ(decoder_.DecodeBatch("{\"transactions\":[],\"x\":1}", 1000).status().field(), "x");
  EXPECT_FALSE(decoder_.DecodeBatch("[]", 1000).ok());
}

TEST_F(TransactionJsonTest, CanonicalFormIgnoresKeyOrderAndSpelling) {
  const std::string reordered = R"({"receiver":{"account":"ACC-2","country":"GB","bank":"BANKGB22",
    "name":"Acme Ltd"},"sender":{"name":"John Smith","account":"ACC-1","bank":"BANKUS33",
    "country":"US"},"amount":9950,"currency":"USD","timestamp":"2026-12-02T11:15:30.123+01:00",
    "transaction_id":"tx-0001","channel":"wire","type":"transfer","remittance":"invoice 4411",
    "metadata":{"switch_ref":"A1"},"deadline_ms":200})";
  Result<Transaction> a = decoder_.DecodeOne(kGood);
  Result<Transaction> b = decoder_.DecodeOne(reordered);
  ASSERT_TRUE(a.ok() && b.ok()) << b.status().ToString();
  EXPECT_EQ(CanonicalTransactionJson(*a), CanonicalTransactionJson(*b));
  EXPECT_NE(CanonicalTransactionJson(*a).find(R"("amount":"9950.00")"), std::string::npos);
  EXPECT_NE(CanonicalTransactionJson(*a).find("2026-12-02T10:15:30.123000Z"), std::string::npos);
}

}  // namespace
}  // namespace verdict
