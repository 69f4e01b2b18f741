#include "policy/compiled_policy.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "policy/policy_test_util.h"

namespace verdict {
namespace {

using testing::In;
using testing::kTestFeatures;
using testing::MakeTxn;
using testing::MustCompile;
using testing::Usd;

struct Features {
  std::array<double, 4> values{0, 0, 0, 0};
  FeatureView view() const { return {values, kTestFeatures, "test"}; }
};

std::vector<std::string> Codes(const PolicyResult& r) {
  std::vector<std::string> codes;
  for (const Reason& reason : r.reasons) codes.push_back(reason.code);
  return codes;
}

TEST(CompiledPolicyTest, PrecedenceBlockOverReviewOverAllowAndEveryMatchIsAReason) {
  auto policy = MustCompile(R"(
rule a { when sender_out_count_24h >= 1 then allow reason "A" }
rule r { when sender_out_count_24h >= 2 then review reason "R" }
rule b { when sender_out_count_24h >= 3 then block reason "B" }
rule r2 { when sender_out_count_24h >= 4 then review reason "R2" }
)");
  ASSERT_TRUE(policy);
  Features f;
  auto txn = MakeTxn(Usd(100));
  EXPECT_EQ(policy->Evaluate(txn, f.view(), 0.1).outcome, Outcome::kAllow);
  EXPECT_TRUE(policy->Evaluate(txn, f.view(), 0.1).reasons.empty());
  f.values[1] = 1;
  auto r = policy->Evaluate(txn, f.view(), std::nullopt);
  EXPECT_EQ(r.outcome, Outcome::kAllow);
  EXPECT_EQ(Codes(r), std::vector<std::string>({"A"}));
  f.values[1] = 2;
  EXPECT_EQ(policy->Evaluate(txn, f.view(), std::nullopt).outcome, Outcome::kReview);
  f.values[1] = 4;
  r = policy->Evaluate(txn, f.view(), std::nullopt);
  EXPECT_EQ(r.outcome, Outcome::kBlock);
  EXPECT_EQ(Codes(r), std::vector<std::string>({"A", "R", "B", "R2"}));
  EXPECT_EQ(r.reasons[2].rule, "b");
  EXPECT_EQ(r.reasons[2].message, "b (sender_out_count_24h=4)");
}

TEST(CompiledPolicyTest, ArithmeticFunctionsAndConstants) {
  auto policy = MustCompile(R"(
const k = 2 * 3 + 1
const day = 1d
rule r { when abs(-amount) + max(1, 2, k) - min(4, 5) == 10 and day == 86400
         and log1p(0) == 0 and amount / 2 == 3.5 then review reason "R" }
)");
  ASSERT_TRUE(policy);
  Features f;
  f.values[0] = 6;
  EXPECT_EQ(policy->Evaluate(MakeTxn(Usd(1)), f.view(), 0).outcome, Outcome::kAllow);
  f.values[0] = 7;
  EXPECT_EQ(policy->Evaluate(MakeTxn(Usd(1)), f.view(), 0).outcome, Outcome::kReview);
}

TEST(CompiledPolicyTest, ModelScoreAbsentMeansRulesUsingItDoNotFire) {
  auto policy = MustCompile(R"(
rule high { when model.score >= 0.9 then block reason "HIGH" }
rule low { when not (model.score >= 0.9) then review reason "LOW" }
rule either { when model.score >= 0.9 or amount > 100 then review reason "EITHER" }
rule fallback { when not model.available then review reason "FALLBACK" }
)");
  ASSERT_TRUE(policy);
  Features f;
  auto txn = MakeTxn(Usd(1));
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), 0.95)),
            std::vector<std::string>({"HIGH", "EITHER"}));
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), 0.5)), std::vector<std::string>({"LOW"}));
  // Absent: neither `>= 0.9` nor its negation fires; `or` with a true side still fires.
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), std::nullopt)),
            std::vector<std::string>({"FALLBACK"}));
  f.values[0] = 200;
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), std::nullopt)),
            std::vector<std::string>({"EITHER", "FALLBACK"}));
  auto r = policy->Evaluate(txn, f.view(), std::nullopt);
  EXPECT_EQ(r.reasons[0].message, "either (model.score=absent, amount=200)");
}

TEST(CompiledPolicyTest, DivisionByZeroAndNaNAreUnknown) {
  auto policy = MustCompile(R"(
rule r { when amount / sender_out_count_24h > 1 then review reason "R" }
rule n { when not (amount / sender_out_count_24h > 1) then review reason "N" }
)");
  Features f;
  f.values[0] = 5;
  EXPECT_TRUE(policy->Evaluate(MakeTxn(Usd(1)), f.view(), 0).reasons.empty());
  f.values[0] = NAN;
  f.values[1] = 1;
  EXPECT_TRUE(policy->Evaluate(MakeTxn(Usd(1)), f.view(), 0).reasons.empty());
}

TEST(CompiledPolicyTest, MoneySameCurrencyIsExact) {
  auto policy = MustCompile(R"(
rule r { when txn.amount >= 10000 USD then review reason "R" }
rule e { when txn.amount == 9999.99 USD then review reason "E" }
)");
  Features f;
  EXPECT_EQ(Codes(policy->Evaluate(MakeTxn(Usd(999999)), f.view(), 0)),
            std::vector<std::string>({"E"}));
  EXPECT_EQ(Codes(policy->Evaluate(MakeTxn(Usd(1000000)), f.view(), 0)),
            std::vector<std::string>({"R"}));
}

TEST(CompiledPolicyTest, MoneyAcrossCurrenciesUsesStaticRatesElseUnknown) {
  auto policy = MustCompile(R"(
rate 1 EUR = 1.10 USD
rate 1 USD = 150 JPY
rule r { when txn.amount >= 11000 USD then review reason "R" }
rule not_r { when not (txn.amount >= 11000 USD) then allow reason "NOT_R" }
)");
  Features f;
  // 10,000.00 EUR = 11,000.00 USD exactly: at the threshold.
  EXPECT_EQ(Codes(policy->Evaluate(MakeTxn(In("EUR", 1000000)), f.view(), 0)),
            std::vector<std::string>({"R"}));
  EXPECT_EQ(Codes(policy->Evaluate(MakeTxn(In("EUR", 999999)), f.view(), 0)),
            std::vector<std::string>({"NOT_R"}));
  // Reverse direction: 1,650,000 JPY = 11,000 USD (JPY has no minor digits).
  EXPECT_EQ(Codes(policy->Evaluate(MakeTxn(In("JPY", 1650000)), f.view(), 0)),
            std::vector<std::string>({"R"}));
  EXPECT_EQ(Codes(policy->Evaluate(MakeTxn(In("JPY", 1649999)), f.view(), 0)),
            std::vector<std::string>({"NOT_R"}));
  // No rate for GBP: neither the comparison nor its negation fires.
  EXPECT_TRUE(policy->Evaluate(MakeTxn(In("GBP", 100000000)), f.view(), 0).reasons.empty());
  // Three-digit currencies convert exactly too.
  auto kwd = MustCompile(R"(
rate 1 KWD = 3.25 USD
rule r { when txn.amount > 3.25 USD then review reason "R" })");
  EXPECT_TRUE(kwd->Evaluate(MakeTxn(In("KWD", 1000)), f.view(), 0).reasons.empty());
  EXPECT_EQ(kwd->Evaluate(MakeTxn(In("KWD", 1001)), f.view(), 0).reasons.size(), 1u);
}

TEST(CompiledPolicyTest, ListsAndStringFields) {
  auto policy = MustCompile(R"(
list hr = countries ["IR", "KP"]
list bad = accounts ["ACC-666"]
list ch = strings ["cash", "crypto"]
rule corridor { when txn.receiver.country in @hr then review reason "CORRIDOR" }
rule acct { when txn.sender.account in @bad then block reason "ACCT" }
rule chan { when txn.channel not in @ch and txn.type == "transfer" then allow reason "CHAN" }
rule cross { when txn.sender.country != txn.receiver.country then allow reason "CROSS" }
)");
  Features f;
  auto txn = MakeTxn(Usd(100));
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), 0)), std::vector<std::string>({"CHAN", "CROSS"}));
  txn.receiver.country = "KP";
  txn.sender.ref.account = "ACC-666";
  txn.channel = "crypto";
  auto r = policy->Evaluate(txn, f.view(), 0);
  EXPECT_EQ(r.outcome, Outcome::kBlock);
  EXPECT_EQ(Codes(r), std::vector<std::string>({"CORRIDOR", "ACCT", "CROSS"}));
  txn.receiver.country = "";  // absent country is simply not in the list
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), 0)), std::vector<std::string>({"ACCT", "CROSS"}));
}

TEST(CompiledPolicyTest, TypologySumsWeightsAgainstAlertAndBlock) {
  auto policy = MustCompile(R"(
rule a { when sender_out_count_24h >= 1 then allow reason "A" weight 0.5 }
rule b { when receiver_in_count_24h >= 1 then allow reason "B" weight 0.3 }
rule c { when amount >= 1 then allow reason "C" }
typology t {
  description "test typology"
  rule a
  rule b weight 0.4
  rule c weight 0.6
  alert 0.9
  block 1.5
  reason "TYP"
}
)");
  Features f;
  auto txn = MakeTxn(Usd(1));
  PolicyTrace trace;
  f.values[1] = 1;  // a: 0.5
  auto r = policy->Evaluate(txn, f.view(), 0, &trace);
  EXPECT_EQ(r.outcome, Outcome::kAllow);
  ASSERT_EQ(trace.typologies.size(), 1u);
  EXPECT_DOUBLE_EQ(trace.typologies[0].score, 0.5);
  EXPECT_EQ(trace.typologies[0].outcome, Outcome::kAllow);
  f.values[2] = 1;  // a + b(0.4 here, not its own 0.3) = 0.9
  r = policy->Evaluate(txn, f.view(), 0, &trace);
  EXPECT_EQ(r.outcome, Outcome::kReview);
  EXPECT_DOUBLE_EQ(trace.typologies[0].score, 0.9);
  EXPECT_EQ(Codes(r), std::vector<std::string>({"A", "B", "TYP"}));
  EXPECT_EQ(r.reasons.back().message, "test typology (score 0.90 >= alert 0.90; rules: a, b)");
  f.values[0] = 1;  // + c 0.6 = 1.5
  r = policy->Evaluate(txn, f.view(), 0, &trace);
  EXPECT_EQ(r.outcome, Outcome::kBlock);
  EXPECT_EQ(trace.typologies[0].outcome, Outcome::kBlock);
  EXPECT_EQ(trace.fired_rules, std::vector<uint32_t>({0, 1, 2}));
}

TEST(CompiledPolicyTest, ScreeningResultsAreInReasonsAndTrace) {
  auto policy =
      MustCompile(R"(
list sanctions = names from "s.csv"
list terms = patterns ["\\bbitcoin\\b", "gift ?cards?"]
rule hit { when watchlist_match(txn.receiver.name, @sanctions) >= 0.9 then block reason "SANCTIONS" }
rule near { when watchlist_match(txn.receiver.name, @sanctions) >= 0.5 then review reason "NEAR" }
rule text { when text_match(txn.remittance, @terms) then review reason "TEXT" }
)",
                  {{"s.csv", "id,name\nS-1,Ivan Petrov\nS-2,\"Oceanic Shipping Co., Ltd\"\n"}});
  ASSERT_TRUE(policy);
  Features f;
  auto txn = MakeTxn(Usd(100));
  txn.receiver.name = "PETROV, Ivan";
  txn.remittance = "Payment for GIFT CARDS";
  PolicyTrace trace;
  auto r = policy->Evaluate(txn, f.view(), 0, &trace);
  EXPECT_EQ(r.outcome, Outcome::kBlock);
  ASSERT_EQ(Codes(r), std::vector<std::string>({"SANCTIONS", "NEAR", "TEXT"}));
  EXPECT_EQ(r.reasons[0].message, "hit (@sanctions best match 'Ivan Petrov' [S-1] score 1.000)");
  EXPECT_EQ(r.reasons[2].message, "text (@terms matched pattern 2 'gift ?cards?')");
  // The same call in two rules is screened once.
  ASSERT_EQ(trace.screenings.size(), 2u);
  EXPECT_EQ(trace.screenings[0].entry_id, "S-1");
  EXPECT_EQ(trace.screenings[0].score, 1.0);
  EXPECT_EQ(trace.screenings[1].function, "text_match");
  txn.receiver.name = "Acme Ltd";
  txn.remittance = "invoice 4411";
  EXPECT_TRUE(policy->Evaluate(txn, f.view(), 0).reasons.empty());
}

TEST(CompiledPolicyTest, RepeatedMembershipTestsAgree) {
  auto policy = MustCompile(R"(
list bad = accounts ["ACC-666"]
rule a { when txn.sender.account in @bad then review reason "A" }
rule b { when txn.sender.account not in @bad then allow reason "B" }
rule c { when txn.receiver.account in @bad or txn.sender.account in @bad then block reason "C" }
)");
  Features f;
  auto txn = MakeTxn(Usd(100));
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), 0)), std::vector<std::string>({"B"}));
  txn.receiver.ref.account = "ACC-666";
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), 0)), std::vector<std::string>({"B", "C"}));
  txn.sender.ref.account = "ACC-666";
  EXPECT_EQ(Codes(policy->Evaluate(txn, f.view(), 0)), std::vector<std::string>({"A", "C"}));
}

TEST(CompiledPolicyTest, ConcurrentEvaluationsAgree) {
  auto policy = MustCompile(R"(
list sanctions = names ["Ivan Petrov", "Kim Song Chol"]
list terms = patterns ["\\bbitcoin\\b"]
rule hit { when watchlist_match(txn.receiver.name, @sanctions) >= 0.9 then block reason "S" }
rule text { when text_match(txn.remittance, @terms) then review reason "T" }
)");
  ASSERT_TRUE(policy);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Features f;
      auto txn = MakeTxn(Usd(100));
      for (int i = 0; i < 200; ++i) {
        const bool listed = (i + t) % 2 == 0;
        txn.receiver.name = listed ? "PETROV Ivan" : "Acme Ltd";
        txn.remittance = listed ? "clean" : "pay in Bitcoin";
        auto r = policy->Evaluate(txn, f.view(), std::nullopt);
        if (r.reasons.size() != 1 || r.reasons[0].code != (listed ? "S" : "T")) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(CompiledPolicyTest, ShortFeatureViewReadsAsUnknown) {
  auto policy = MustCompile("rule r { when sender_out_sum_24h > 1 then review reason \"R\" }");
  std::array<double, 1> values{5};
  FeatureView view{values, std::span<const std::string_view>(kTestFeatures).first(1), "x"};
  EXPECT_TRUE(policy->Evaluate(MakeTxn(Usd(1)), view, 0).reasons.empty());
}

TEST(CompiledPolicyTest, HourOfDay) {
  auto policy = MustCompile("rule r { when txn.hour == 10 then review reason \"R\" }");
  Features f;
  EXPECT_EQ(policy->Evaluate(MakeTxn(Usd(1)), f.view(), 0).outcome, Outcome::kReview);
}

}  // namespace
}  // namespace verdict
