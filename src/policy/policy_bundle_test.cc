#include "policy/policy_bundle.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "features/feature_vector.h"
#include "policy/policy_test_util.h"

namespace verdict {
namespace {

using testing::In;
using testing::kTestFeatures;
using testing::MakeTxn;
using testing::Source;
using testing::Usd;

std::filesystem::path RepoRoot() {
  const char* dir = std::getenv("VERDICT_SOURCE_DIR");
  return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::current_path();
}

constexpr char kPolicy[] = R"(policy "p" version "3"
list s = names from "lists/s.csv"
rule r { when watchlist_match(txn.receiver.name, @s) > 0.9 then block reason "S" }
)";

TEST(PolicyBundleTest, ShaCoversEveryFileAndIsCanonical) {
  BundleSource a = Source(kPolicy, {{"lists/s.csv", "id,name\n1,Ivan Petrov\n"}});
  BundleSource b = a;
  b.version = "other";
  EXPECT_EQ(BundleSha256(a), BundleSha256(b));  // version is metadata, not content
  EXPECT_EQ(BundleSha256(a).size(), 64u);
  b.files["lists/s.csv"] += "2,Other\n";
  EXPECT_NE(BundleSha256(a), BundleSha256(b));
  // Moving bytes between the policy and a file changes the hash (length-prefixed).
  BundleSource c = Source("ab", {{"f", "c"}});
  BundleSource d = Source("a", {{"f", "bc"}});
  EXPECT_NE(BundleSha256(c), BundleSha256(d));
}

TEST(PolicyBundleTest, CompileRecordsVersionShaAndContents) {
  BundleSource source = Source(kPolicy, {{"lists/s.csv", "id,name\n1,Ivan Petrov\n"}});
  source.version = "";
  auto policy = CompileBundle(source, kTestFeatures);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  const BundleInfo& info = (*policy)->info();
  EXPECT_EQ(info.ref.version, "3");
  EXPECT_EQ(info.ref.sha256, BundleSha256(source));
  EXPECT_EQ(info.name, "p");
  EXPECT_EQ(info.rules, 1u);
  ASSERT_EQ(info.lists.size(), 1u);
  EXPECT_EQ(info.lists[0].entries, 1u);
  ASSERT_EQ(info.files.size(), 2u);
  std::string json;
  JsonWriter out(json);
  WriteBundleInfoJson(info, out);
  EXPECT_NE(json.find("\"version\":\"3\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\":\"names\",\"entries\":1"), std::string::npos) << json;
}

TEST(PolicyBundleTest, FailedCompileReturnsAllErrors) {
  std::vector<Diagnostic> errors;
  auto policy = CompileBundle(Source("rule a { when x > 1 then block reason \"A\" }\n"
                                     "rule b { when y > 1 then block reason \"B\" }\n"),
                              kTestFeatures, &errors);
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().code(), StatusCode::kInvalidArgument);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(policy.status().message().find("test.policy:1:15: unknown name 'x'"), std::string::npos)
      << policy.status().message();
  EXPECT_NE(policy.status().message().find("test.policy:2:15: unknown name 'y'"),
            std::string::npos);
  std::string json;
  JsonWriter out(json);
  WriteDiagnosticsJson(errors, out);
  EXPECT_EQ(json.rfind("[{\"file\":\"test.policy\",\"line\":1,\"column\":15,\"message\":", 0), 0u)
      << json;
}

TEST(PolicyBundleTest, MissingVersionIsAnError) {
  BundleSource source = Source("rule a { when amount > 1 then block reason \"A\" }");
  source.version = "";
  auto errors = ValidateBundle(source, kTestFeatures);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("bundle has no version"), std::string::npos);
}

TEST(PolicyBundleTest, IngestJson) {
  auto source = ParseBundleJson(
      R"({"version":"7","policy":"list s = names from \"s.csv\"\n","files":{"s.csv":"id,name\n1,A B\n"}})");
  ASSERT_TRUE(source.ok()) << source.status().message();
  EXPECT_EQ(source->version, "7");
  EXPECT_EQ(source->files.at("s.csv"), "id,name\n1,A B\n");
  EXPECT_TRUE(ValidateBundle(*source, kTestFeatures).empty());
  EXPECT_FALSE(ParseBundleJson("{").ok());
  EXPECT_FALSE(ParseBundleJson("[]").ok());
  EXPECT_EQ(ParseBundleJson(R"({"version":"1"})").status().field(), "policy");
  EXPECT_EQ(ParseBundleJson(R"({"policy":"", "extra":1})").status().field(), "extra");
  EXPECT_EQ(ParseBundleJson(R"({"policy":"", "files":{"a":1}})").status().field(), "files.a");
}

TEST(PolicyBundleTest, ReadsPolicyAndListFilesFromDisk) {
  auto dir =
      std::filesystem::temp_directory_path() / ("verdict_bundle_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "lists");
  std::ofstream(dir / "p.policy") << kPolicy;
  std::ofstream(dir / "lists" / "s.csv") << "id,name\n1,Ivan Petrov\n";
  auto policy = LoadBundle(dir, kTestFeatures);  // the folder: its one .policy file
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ((*policy)->ref().version, "3");
  std::filesystem::remove(dir / "lists" / "s.csv");
  auto missing = LoadBundle(dir / "p.policy", kTestFeatures);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("p.policy:2:21: list file 'lists/s.csv' is missing"),
            std::string::npos)
      << missing.status().message();
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(LoadBundle(dir / "nope.policy", kTestFeatures).ok());
}

// The shipped demo policy, against the engine's real feature schema: it must check, and its
// rules must produce the decisions they are meant to.
class DemoPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = LoadBundle(RepoRoot() / "config/policy/demo.policy", kFeatureNames);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    policy_ = *loaded;
    values_.fill(0);
  }
  void Set(std::string_view name, double v) {
    for (size_t i = 0; i < kFeatureNames.size(); ++i) {
      if (kFeatureNames[i] == name) {
        values_[i] = v;
        return;
      }
    }
    FAIL() << "no feature " << name;
  }
  PolicyResult Decide(const Transaction& txn, std::optional<double> score = 0.1) {
    Set("amount", txn.amount.ToMajor());
    FeatureView view{values_, kFeatureNames, kFeatureSchemaVersion};
    return policy_->Evaluate(txn, view, score);
  }
  static bool Has(const PolicyResult& r, std::string_view code) {
    for (const Reason& reason : r.reasons) {
      if (reason.code == code) return true;
    }
    return false;
  }

  std::shared_ptr<const CompiledPolicy> policy_;
  FeatureVector values_;
};

TEST_F(DemoPolicyTest, CleanPaymentIsAllowed) {
  auto r = Decide(MakeTxn(Usd(12'500)));
  EXPECT_EQ(r.outcome, Outcome::kAllow);
  EXPECT_TRUE(r.reasons.empty()) << r.reasons[0].code;
  EXPECT_EQ(policy_->ref().version, "1");
}

// Signals that ordinary customers also show (a large amount, a busy merchant collecting from
// many payers) are reported and weigh in the typologies, but alone do not make an alert.
TEST_F(DemoPolicyTest, CommonSignalsAloneDoNotAlert) {
  auto large = Decide(MakeTxn(Usd(1'250'000)));
  EXPECT_EQ(large.outcome, Outcome::kAllow);
  EXPECT_TRUE(Has(large, "LARGE_AMOUNT"));
  Set("receiver_distinct_senders_24h", 40);
  auto merchant = Decide(MakeTxn(Usd(50'00)));
  EXPECT_EQ(merchant.outcome, Outcome::kAllow);
  EXPECT_TRUE(Has(merchant, "FAN_IN"));
  // Fan-in with onward movement of what came in, a large amount to a new counterparty: a mule.
  Set("sender_pass_through_ratio_24h", 0.95);
  Set("sender_in_sum_24h", 40'000);
  Set("sender_hours_since_last_in", 2);
  Set("pair_first_time", 1);
  Set("amount_usd", 12'000);
  auto mule = Decide(MakeTxn(Usd(1'200'000)));
  EXPECT_EQ(mule.outcome, Outcome::kReview);
  EXPECT_TRUE(Has(mule, "TYPOLOGY_MULE"));  // 0.3 + 0.5 + 0.2 + 0.3 >= alert 1.0
  EXPECT_TRUE(Has(mule, "RAPID_MOVEMENT"));
}

TEST_F(DemoPolicyTest, Structuring) {
  Set("amount_near_threshold", 1);
  Set("sender_near_threshold_count_24h", 4);
  Set("sender_near_threshold_sum_24h", 38'000);
  auto r = Decide(MakeTxn(Usd(950'000)));
  EXPECT_EQ(r.outcome, Outcome::kReview);
  EXPECT_TRUE(Has(r, "STRUCTURING"));
  EXPECT_TRUE(Has(r, "NEAR_THRESHOLD"));
  EXPECT_TRUE(Has(r, "TYPOLOGY_STRUCTURING"));  // 0.3 + 0.6 >= 0.8
  // The EUR band of the money rule applies to EUR payments.
  EXPECT_TRUE(Has(Decide(MakeTxn(In("EUR", 920'000))), "NEAR_THRESHOLD"));
  EXPECT_FALSE(Has(Decide(MakeTxn(In("EUR", 1'020'000))), "NEAR_THRESHOLD"));
}

TEST_F(DemoPolicyTest, DormantActivationAndRoundTripping) {
  Set("sender_days_since_last_activity", 400);
  auto r = Decide(MakeTxn(Usd(800'000)));
  EXPECT_TRUE(Has(r, "DORMANT_ACTIVATION"));
  EXPECT_EQ(r.outcome, Outcome::kReview);
  Set("sender_days_since_last_activity", -1);  // no history: not dormant
  EXPECT_FALSE(Has(Decide(MakeTxn(Usd(800'000))), "DORMANT_ACTIVATION"));
  Set("closes_cycle_3", 1);
  Set("amount_usd", 500);  // small cycles are common among friends and family
  EXPECT_FALSE(Has(Decide(MakeTxn(Usd(50'000))), "ROUND_TRIPPING"));
  Set("amount_usd", 1'000);
  EXPECT_TRUE(Has(Decide(MakeTxn(Usd(100'000))), "ROUND_TRIPPING"));
}

TEST_F(DemoPolicyTest, LargeAmountInOtherCurrencyConvertsExactly) {
  EXPECT_TRUE(Has(Decide(MakeTxn(In("GBP", 800'000))), "LARGE_AMOUNT"));   // 10,160 USD
  EXPECT_FALSE(Has(Decide(MakeTxn(In("GBP", 780'000))), "LARGE_AMOUNT"));  // 9,906 USD
}

TEST_F(DemoPolicyTest, SanctionsMatchBlocksWithTheEntryInTheReason) {
  auto txn = MakeTxn(Usd(50'000));
  txn.receiver.name = "Сидоров Иван Петрович";
  auto r = Decide(txn);
  EXPECT_EQ(r.outcome, Outcome::kBlock);
  ASSERT_TRUE(Has(r, "SANCTIONS_MATCH"));
  EXPECT_NE(r.reasons[0].message.find("[SYN-0001] score 1.000"), std::string::npos)
      << r.reasons[0].message;
}

TEST_F(DemoPolicyTest, HighRiskCorridorAndLayering) {
  Set("sender_out_count_1h", 25);
  Set("sender_distinct_receivers_24h", 14);
  Set("sender_distinct_receivers_7d", 20);
  Set("sender_new_receiver_share_7d", 0.9);  // 0.2 + 0.3 + 0.3 + 0.5 >= alert 1.2
  auto txn = MakeTxn(Usd(200'000));
  txn.receiver.country = "IR";
  auto r = Decide(txn);
  EXPECT_TRUE(Has(r, "HIGH_RISK_CORRIDOR"));
  EXPECT_TRUE(Has(r, "TYPOLOGY_LAYERING"));
  EXPECT_EQ(r.outcome, Outcome::kReview);
}

TEST_F(DemoPolicyTest, ModelBandsOnlyOnTheModelPath) {
  auto txn = MakeTxn(Usd(10'000));
  EXPECT_EQ(Decide(txn, 0.97).outcome, Outcome::kBlock);
  EXPECT_EQ(Decide(txn, 0.8).outcome, Outcome::kReview);
  EXPECT_EQ(Decide(txn, std::nullopt).outcome, Outcome::kAllow);
}

}  // namespace
}  // namespace verdict
