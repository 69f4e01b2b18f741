#include "api/payment_json.h"

#include <gtest/gtest.h>

#include <string>

#include "api/transaction_json.h"

namespace verdict {
namespace {

// A transaction as a payment message leaves it: every PaymentInfo field set.
Transaction MessageTransaction() {
  TransactionDecoder decoder;
  Result<Transaction> txn = decoder.DecodeOne(R"({"transaction_id": "E2E-1",
    "timestamp": "2026-12-02T10:15:30Z", "amount": "10500.00", "currency": "USD",
    "sender": {"account": "DE89370400440532013000", "bank": "DEUTDEFF"},
    "receiver": {"account": "GB29NWBK60161331926819", "bank": "NWBKGB2L"}})");
  EXPECT_TRUE(txn.ok()) << txn.status().ToString();
  PaymentInfo& p = txn->payment;
  p.message_type = "pacs.008.001.08";
  p.message_id = "MSG-1";
  p.instruction_id = "INSTR-1";
  p.end_to_end_id = "E2E-1";
  p.uetr = "8a562c67-ca16-48ba-b074-65581be6f011";
  p.settlement_date = "2026-12-02";
  p.charge_bearer = "SHAR";
  p.purpose = "GDDS";
  p.category_purpose = "SUPP";
  p.instructed_amount = *Money::Parse("10500.00", *FindCurrency("USD"));
  p.agents = {{"instructing", "DEUTDEFF", ""}, {"intermediary1", "", "Caisse Générale"}};
  p.charges = {{"agent", *Money::Parse("0", *FindCurrency("EUR")), "DEUTDEFF"},
               {"sender", *Money::Parse("2.50", *FindCurrency("EUR")), ""}};
  p.sender_to_receiver = "PHONE BEFORE CREDIT";
  return *txn;
}

// The canonical JSON with `from` replaced by `to` (once).
std::string Edited(const Transaction& txn, const std::string& from, const std::string& to) {
  std::string json = CanonicalTransactionJson(txn);
  size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return json.replace(at, from.size(), to);
}

TEST(PaymentJsonTest, CanonicalJsonRoundTripsEveryPaymentField) {
  const Transaction txn = MessageTransaction();
  const std::string canonical = CanonicalTransactionJson(txn);
  EXPECT_NE(canonical.find(R"("payment":{"message_type":"pacs.008.001.08")"), std::string::npos);
  TransactionDecoder decoder;
  Result<Transaction> back = decoder.DecodeOne(canonical);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->payment, txn.payment);
  EXPECT_EQ(CanonicalTransactionJson(*back), canonical);
}

TEST(PaymentJsonTest, NoPaymentObjectWithoutAMessage) {
  Transaction txn = MessageTransaction();
  txn.payment = PaymentInfo{};
  EXPECT_EQ(CanonicalTransactionJson(txn).find("payment"), std::string::npos);
}

TEST(PaymentJsonTest, RefusesBadPaymentFieldsByName) {
  const Transaction txn = MessageTransaction();
  struct Case {
    std::string from, to, field;
  };
  const Case cases[] = {
      {R"("message_type":"pacs.008.001.08",)", "", "payment.message_type"},
      {R"("uetr":"8a562c67)", R"("uetr":"8A562C67)", "payment.uetr"},
      {R"("settlement_date":"2026-12-02")", R"("settlement_date":"2026-13-02")",
       "payment.settlement_date"},
      {R"("charge_bearer":"SHAR")", R"("charge_bearer":"ours")", "payment.charge_bearer"},
      {R"("bic":"DEUTDEFF")", R"("bic":"DEUTXXFF")", "payment.agents[0].bic"},
      {R"({"role":"intermediary1",)", "{", "payment.agents[1].role"},
      {R"("kind":"sender")", R"("kind":"bank")", "payment.charges[1].kind"},
      {R"("amount":{"amount":"2.50")", R"("amount":{"amount":"-2.50")",
       "payment.charges[1].amount.amount"},
      {R"("instructed_amount":{"amount":"10500.00","currency":"USD"})",
       R"("instructed_amount":{"amount":"0.00","currency":"USD"})",
       "payment.instructed_amount.amount"},
      {R"("currency":"USD"})", R"("currency":"XYZ"})", "payment.instructed_amount.currency"},
      {R"("purpose":"GDDS")", R"("purpose":"GDDS","purpose":"GDDS")", "payment.purpose"},
      {R"("purpose":"GDDS")", R"("porpoise":"GDDS")", "payment.porpoise"},
      {R"("agents":[)", R"("agents":7,"more_agents":[)", "payment.agents"},
  };
  TransactionDecoder decoder;
  for (const Case& c : cases) {
    Result<Transaction> r = decoder.DecodeOne(Edited(txn, c.from, c.to));
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().field(), c.field) << r.status().ToString();
  }
}

}  // namespace
}  // namespace verdict
