// A tenant's own policy, stored in the journal's registry, is restored at start only when the
// tenant's journaled admin events put that very bundle in force: a bundle edited, added or put
// back on disk is refused naming the tenant.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "engine/key_routes.h"
#include "features/feature_vector.h"
#include "journal/test_util.h"
#include "policy/policy_bundle.h"

namespace verdict {
namespace {

using engine_testing::TickingClock;
using journal::testing_util::TempDir;

constexpr std::string_view kPolicyKey = "tenant-policy/bank-a";

std::string BundleJson(std::string_view version, std::string_view threshold) {
  return R"({"version":")" + std::string(version) + R"(","policy":"policy \"p\" version \")" +
         std::string(version) + R"(\"\nrule big { when txn.amount > )" + std::string(threshold) +
         R"( USD then block reason \"BIG\" }\n"})";
}

class TenantPolicyLedgerTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<Engine>> Start() {
    EngineOptions options;
    options.data_dir = dir_.path();
    options.sched.workers = 1;
    return Engine::Create(options, metrics_, clock_);
  }
  void Activate(Engine& engine, const std::string& bundle_json) {
    Result<BundleSource> source = ParseBundleJson(bundle_json);
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    auto compiled = CompileBundle(*source, kFeatureNames);
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    ASSERT_TRUE(engine.ActivatePolicy(Caller{"bank-a", "admin"}, bundle_json, *compiled).ok());
  }
  // What an insider with disk access does: the registry row written, nothing journaled.
  void Edit(std::string_view key, const std::string& value) {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    ASSERT_TRUE((*engine)->journal().PutRegistry(key, value).ok());
  }
  static void ExpectRefusedNamingTheTenant(const Result<std::unique_ptr<Engine>>& engine) {
    ASSERT_EQ(engine.status().code(), StatusCode::kDataLoss) << engine.status().ToString();
    EXPECT_NE(engine.status().message().find("tenant bank-a"), std::string::npos)
        << engine.status().ToString();
  }

  TempDir dir_;
  MetricsRegistry metrics_;
  TickingClock clock_;
};

TEST_F(TenantPolicyLedgerTest, TheJournaledPolicyIsRestored) {
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Activate(**engine, BundleJson("1", "100"));
    Activate(**engine, BundleJson("2", "200"));
  }
  auto restarted = Start();
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  ASSERT_NE((*restarted)->PolicyFor("bank-a")->compiled(), nullptr);
  EXPECT_EQ((*restarted)->PolicyFor("bank-a")->ref().version, "2");
}

TEST_F(TenantPolicyLedgerTest, AnEditedBundleIsRefused) {
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Activate(**engine, BundleJson("1", "100"));
  }
  Edit(kPolicyKey, BundleJson("1", "100000000"));  // the rule made toothless, same version
  ExpectRefusedNamingTheTenant(Start());
}

TEST_F(TenantPolicyLedgerTest, AFormerBundlePutBackIsRefused) {
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Activate(**engine, BundleJson("1", "100000000"));
    Activate(**engine, BundleJson("2", "100"));
  }
  Edit(kPolicyKey, BundleJson("1", "100000000"));
  ExpectRefusedNamingTheTenant(Start());
}

TEST_F(TenantPolicyLedgerTest, ABundleNeverJournaledIsRefused) {
  Edit(kPolicyKey, BundleJson("1", "100"));
  ExpectRefusedNamingTheTenant(Start());
}

TEST_F(TenantPolicyLedgerTest, ADeletedBundleIsRefusedForATenantWithKeys) {
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Activate(**engine, BundleJson("1", "100"));
    JournalKeyStorage storage((*engine)->journal());
    auto keys = security::KeyStore::Open(storage, JournalKeyAudit((*engine)->journal()));
    ASSERT_TRUE(keys.ok()) << keys.status().ToString();
    ASSERT_TRUE(
        (*keys)->Create("bank-a", "switch", static_cast<uint32_t>(Role::kScorer), 1, "admin").ok());
  }
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    // Without its row the tenant would decide with the deployment's policy.
    ASSERT_TRUE((*engine)->journal().DeleteRegistry(kPolicyKey).ok());
  }
  ExpectRefusedNamingTheTenant(Start());
}

TEST_F(TenantPolicyLedgerTest, AnActivationJournaledWithoutADigestStillRestores) {
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    // As older engines journaled it: no "sha256" in the details.
    ASSERT_TRUE((*engine)
                    ->journal()
                    .RecordAdminEvent({"bank-a", "admin", "policy.activate", "1", "{}"})
                    .ok());
    ASSERT_TRUE((*engine)->journal().PutRegistry(kPolicyKey, BundleJson("1", "100")).ok());
  }
  auto restarted = Start();
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  EXPECT_EQ((*restarted)->PolicyFor("bank-a")->ref().version, "1");
}

TEST_F(TenantPolicyLedgerTest, AnUndoneActivationVouchesForThePolicyStillInForce) {
  std::string former_sha256;
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    Activate(**engine, BundleJson("1", "100"));
    former_sha256 = (*engine)->PolicyFor("bank-a")->ref().sha256;
    // Version 2 journaled, its bundle not stored (the registry write failed), and so undone.
    journal::Journal& j = (*engine)->journal();
    ASSERT_TRUE(j.RecordAdminEvent({"bank-a", "admin", "policy.activate", "2",
                                    R"({"sha256":")" + std::string(64, 'a') + R"("})"})
                    .ok());
    ASSERT_TRUE(j.RecordAdminEvent({"bank-a", "admin", "policy.activate.undone", "1",
                                    R"({"sha256":")" + former_sha256 + R"("})"})
                    .ok());
  }
  auto restarted = Start();
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  EXPECT_EQ((*restarted)->PolicyFor("bank-a")->ref().sha256, former_sha256);
}

}  // namespace
}  // namespace verdict
