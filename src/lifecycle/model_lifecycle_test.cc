#include "lifecycle/model_lifecycle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "lifecycle/lifecycle_test_util.h"

namespace verdict::lifecycle {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int64_t kSecond = 1'000'000;

class ModelLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("verdict-lifecycle-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    options_.registry.models_dir = (dir_ / "models").string();
    options_.registry.schema = testing::kSchema;
    options_.rollout.stages = {0.05, 0.5, 1.0};
    options_.rollout.stage_dwell_us = 60 * kSecond;
    options_.rollout.min_comparisons = 100;
    options_.rollout.min_timings = 100;
    options_.rollout.candidate_p99_budget_us = 1000;
    options_.tick_interval_ms = 0;  // the test ticks
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<ModelLifecycle> Open() {
    auto created = ModelLifecycle::Create(
        options_, store_,
        [this](const AdminChange& c) {
          if (!journal_ok_) return Unavailable("journal failed");
          events_.push_back(c.action + " " + c.object + " by " + c.actor.principal);
          details_.push_back(c.details_json);
          return Status::Ok();
        },
        clock_, &metrics_);
    EXPECT_TRUE(created.ok());
    return std::move(created).value();
  }

  // Registers A (v1) and B (v2) and activates A as primary.
  std::unique_ptr<ModelLifecycle> OpenWithTwo() {
    auto lc = Open();
    EXPECT_TRUE(lc->Start(std::nullopt).ok());
    EXPECT_TRUE(lc->Register({"aml", "1", testing::ModelA(), "", "", "", ""}, admin_).ok());
    EXPECT_TRUE(lc->Register({"aml", "2", testing::ModelB(), "", "", "", ""}, admin_).ok());
    EXPECT_TRUE(lc->Activate("aml", "1", ActivateMode::kPrimary, {}, admin_).ok());
    events_.clear();
    details_.clear();
    return lc;
  }

  static void Compare(const ModelSet& set, int n, int changes, int64_t latency_us = 10) {
    for (int i = 0; i < n; ++i) {
      set.stats->RecordComparison(0.1, Outcome::kAllow, 0.1,
                                  i < changes ? Outcome::kReview : Outcome::kAllow);
      set.stats->RecordCandidateLatency(latency_us);
    }
  }

  static std::string Version(const std::shared_ptr<const ScoringModel>& m) {
    return m ? m->ref().version : "none";
  }

  fs::path dir_;
  LifecycleOptions options_;
  MemoryRegistryStore store_;
  ManualClock clock_{1'700'000'000'000'000};
  MetricsRegistry metrics_;
  Actor admin_{"default", "key-admin"};
  std::vector<std::string> events_;
  std::vector<std::string> details_;
  bool journal_ok_ = true;
};

TEST_F(ModelLifecycleTest, EmptyUntilAPrimaryIsActivated) {
  auto lc = Open();
  ASSERT_TRUE(lc->Start(std::nullopt).ok());
  EXPECT_EQ(lc->current()->primary, nullptr);
  ASSERT_TRUE(lc->Register({"aml", "1", testing::ModelA(), "", "", "", ""}, admin_).ok());
  auto shadow = lc->Activate("aml", "1", ActivateMode::kShadow, {}, admin_);
  EXPECT_EQ(shadow.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(lc->Rollback(admin_, "").code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(lc->Activate("aml", "1", ActivateMode::kPrimary, {}, admin_).ok());
  EXPECT_EQ(Version(lc->current()->primary), "1");
  EXPECT_EQ(events_, (std::vector<std::string>{"models.register aml/1 by key-admin",
                                               "models.activate aml/1 by key-admin"}));
}

TEST_F(ModelLifecycleTest, ActivationArgumentsAreChecked) {
  auto lc = OpenWithTwo();
  EXPECT_EQ(lc->Activate("aml", "2", ActivateMode::kCanary, {}, admin_).field(), "traffic_weight");
  EXPECT_EQ(lc->Activate("aml", "2", ActivateMode::kCanary, 0.0, admin_).field(), "traffic_weight");
  EXPECT_EQ(lc->Activate("aml", "2", ActivateMode::kCanary, 1.5, admin_).field(), "traffic_weight");
  EXPECT_EQ(lc->Activate("aml", "2", ActivateMode::kShadow, 0.5, admin_).field(), "traffic_weight");
  EXPECT_EQ(lc->Activate("aml", "9", ActivateMode::kShadow, {}, admin_).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(lc->Activate("aml", "1", ActivateMode::kCanary, 0.5, admin_).code(),
            StatusCode::kFailedPrecondition);  // already the primary
  EXPECT_FALSE(ParseActivateMode("sideways").ok());
  EXPECT_TRUE(events_.empty());
}

TEST_F(ModelLifecycleTest, ShadowCanaryAndManualRollback) {
  auto lc = OpenWithTwo();
  const uint64_t g0 = lc->current()->generation;
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kShadow, {}, admin_).ok());
  auto set = lc->current();
  EXPECT_EQ(set->mode, CandidateMode::kShadow);
  EXPECT_EQ(Version(set->candidate), "2");
  EXPECT_GT(set->generation, g0);
  ASSERT_NE(set->stats, nullptr);

  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kCanary, 0.15, admin_).ok());
  set = lc->current();
  EXPECT_EQ(set->mode, CandidateMode::kCanary);
  EXPECT_DOUBLE_EQ(set->traffic_weight, 0.15);

  ASSERT_TRUE(lc->Rollback(admin_, "drill").ok());
  set = lc->current();
  EXPECT_EQ(set->mode, CandidateMode::kNone);
  EXPECT_EQ(set->candidate, nullptr);
  EXPECT_EQ(Version(set->primary), "1");
  // No candidate and no previous primary: nothing more to roll back.
  EXPECT_EQ(lc->Rollback(admin_, "").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(events_, (std::vector<std::string>{"models.activate aml/2 by key-admin",
                                               "models.activate aml/2 by key-admin",
                                               "models.rollback aml/2 by key-admin"}));
  EXPECT_THAT(details_[1], HasSubstr("\"traffic_weight\":0.15"));
  EXPECT_THAT(details_[2], HasSubstr("\"reason\":\"drill\""));
}

TEST_F(ModelLifecycleTest, RollbackRestoresThePreviousPrimary) {
  auto lc = OpenWithTwo();
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kPrimary, {}, admin_).ok());
  EXPECT_EQ(Version(lc->current()->primary), "2");
  // Activating the primary again changes nothing and records nothing.
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kPrimary, {}, admin_).ok());
  EXPECT_EQ(events_.size(), 1u);
  ASSERT_TRUE(lc->Rollback(admin_, "bad model").ok());
  EXPECT_EQ(Version(lc->current()->primary), "1");
  EXPECT_EQ(lc->Rollback(admin_, "").code(), StatusCode::kFailedPrecondition);
}

TEST_F(ModelLifecycleTest, AChangeThatCannotBeJournaledIsNotMade) {
  auto lc = OpenWithTwo();
  journal_ok_ = false;
  EXPECT_EQ(lc->Activate("aml", "2", ActivateMode::kStaged, {}, admin_).code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(lc->current()->candidate, nullptr);
  EXPECT_EQ(lc->Activate("aml", "2", ActivateMode::kPrimary, {}, admin_).code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(Version(lc->current()->primary), "1");
  journal_ok_ = true;
  // The failed primary activation left no history behind.
  EXPECT_EQ(lc->Rollback(admin_, "").code(), StatusCode::kFailedPrecondition);
  // Nor did the failed staged start leave a rollout running.
  lc->Tick();
  EXPECT_EQ(lc->current()->candidate, nullptr);
}

// A registration that cannot be journaled is not stored either: a retry once the journal is
// back registers the model and records it.
TEST_F(ModelLifecycleTest, ARegistrationThatCannotBeJournaledIsNotStored) {
  auto lc = OpenWithTwo();
  journal_ok_ = false;
  EXPECT_EQ(lc->Register({"aml", "3", testing::ModelA(), "", "", "", ""}, admin_).status().code(),
            StatusCode::kUnavailable);
  auto found = lc->registry().Find("aml", "3");
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
  EXPECT_TRUE(events_.empty());
  journal_ok_ = true;
  bool created = false;
  ASSERT_TRUE(lc->Register({"aml", "3", testing::ModelA(), "", "", "", ""}, admin_, &created).ok());
  EXPECT_TRUE(created);
  EXPECT_EQ(events_, std::vector<std::string>{"models.register aml/3 by key-admin"});
}

TEST_F(ModelLifecycleTest, StagedRolloutAdvancesAndPromotesOnTheManualClock) {
  auto lc = OpenWithTwo();
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kStaged, {}, admin_).ok());
  auto set = lc->current();
  EXPECT_DOUBLE_EQ(set->traffic_weight, 0.05);
  for (double next : {0.5, 1.0}) {
    Compare(*set, 200, 0);
    clock_.AdvanceMicros(59 * kSecond);
    lc->Tick();
    EXPECT_EQ(lc->current(), set) << "within the dwell nothing changes";
    clock_.AdvanceMicros(1 * kSecond);
    lc->Tick();
    auto advanced = lc->current();
    ASSERT_NE(advanced, set);
    EXPECT_DOUBLE_EQ(advanced->traffic_weight, next);
    EXPECT_EQ(advanced->stats->Snapshot().comparisons, 0u) << "each stage starts fresh";
    set = advanced;
  }
  Compare(*set, 200, 0);
  clock_.AdvanceMicros(60 * kSecond);
  lc->Tick();
  set = lc->current();
  EXPECT_EQ(Version(set->primary), "2");
  EXPECT_EQ(set->candidate, nullptr);
  EXPECT_EQ(events_, (std::vector<std::string>{"models.activate aml/2 by key-admin",
                                               "models.rollout.advance aml/2 by verdict:rollout",
                                               "models.rollout.advance aml/2 by verdict:rollout",
                                               "models.rollout.promote aml/2 by verdict:rollout"}));
  // The promoted model's predecessor is one rollback away.
  ASSERT_TRUE(lc->Rollback(admin_, "").ok());
  EXPECT_EQ(Version(lc->current()->primary), "1");
}

TEST_F(ModelLifecycleTest, DivergenceRollsBackAutomaticallyWithTheReason) {
  auto lc = OpenWithTwo();
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kStaged, {}, admin_).ok());
  Compare(*lc->current(), 1000, 2);  // 0.2% > 0.1%
  lc->Tick();
  auto set = lc->current();
  EXPECT_EQ(set->candidate, nullptr);
  EXPECT_EQ(Version(set->primary), "1");
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[1], "models.rollback aml/2 by verdict:rollout");
  EXPECT_THAT(details_[1], HasSubstr("outcome divergence 0.2%"));
  EXPECT_THAT(details_[1], HasSubstr("\"automatic\":true"));
  std::string out;
  JsonWriter w(out);
  ASSERT_TRUE(lc->WriteStatusJson(w).ok());
  EXPECT_THAT(out, HasSubstr("\"last_rollback\":{"));
  EXPECT_THAT(out, HasSubstr("\"automatic\":true"));
  EXPECT_THAT(out, HasSubstr("outcome divergence 0.2%"));
}

// A store whose writes can be made to fail.
class FlakyStore final : public RegistryStore {
 public:
  Status Put(std::string_view key, std::string_view value) override {
    if (fail_puts) return Unavailable("store write failed");
    return inner.Put(key, value);
  }
  Result<std::optional<std::string>> Get(std::string_view key) const override {
    return inner.Get(key);
  }
  Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const override {
    return inner.List(prefix);
  }
  MemoryRegistryStore inner;
  bool fail_puts = false;
};

// An automatic rollback whose persisting failed is in force at once, and persisted by a later
// tick: a restart does not bring the rolled-back candidate back.
TEST_F(ModelLifecycleTest, AnAutomaticRollbackNotPersistedIsPersistedByALaterTick) {
  FlakyStore store;
  auto open = [&] {
    auto created = ModelLifecycle::Create(options_, store, nullptr, clock_, nullptr);
    EXPECT_TRUE(created.ok());
    return std::move(created).value();
  };
  {
    auto lc = open();
    ASSERT_TRUE(lc->Start(std::nullopt).ok());
    ASSERT_TRUE(lc->Register({"aml", "1", testing::ModelA(), "", "", "", ""}, admin_).ok());
    ASSERT_TRUE(lc->Register({"aml", "2", testing::ModelB(), "", "", "", ""}, admin_).ok());
    ASSERT_TRUE(lc->Activate("aml", "1", ActivateMode::kPrimary, {}, admin_).ok());
    ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kStaged, {}, admin_).ok());
    Compare(*lc->current(), 1000, 2);
    store.fail_puts = true;
    lc->Tick();
    EXPECT_EQ(lc->current()->candidate, nullptr);  // traffic first
    store.fail_puts = false;
    lc->Tick();
  }
  auto lc = open();
  ASSERT_TRUE(lc->Start(std::nullopt).ok());
  EXPECT_EQ(lc->current()->candidate, nullptr);
  EXPECT_EQ(Version(lc->current()->primary), "1");
}

// A canary share below one bucket in 10,000 would decide for no account, and its checks would
// never see a comparison: refused, as configured stages are.
TEST_F(ModelLifecycleTest, ACanaryWeightBelowOneBucketIsRefused) {
  auto lc = OpenWithTwo();
  Status s = lc->Activate("aml", "2", ActivateMode::kCanary, 0.00004, admin_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.field(), "traffic_weight");
  EXPECT_EQ(lc->current()->candidate, nullptr);
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kCanary, kMinTrafficWeight, admin_).ok());
  RolloutOptions rollout = options_.rollout;
  rollout.stages = {0.00005, 0.5};
  EXPECT_EQ(ValidateRolloutOptions(rollout, "lifecycle.").field(), "lifecycle.stages");
}

TEST_F(ModelLifecycleTest, SlowCanaryRollsBackEvenWhenManual) {
  auto lc = OpenWithTwo();
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kCanary, 0.3, admin_).ok());
  Compare(*lc->current(), 100, 0, /*latency_us=*/5000);
  lc->Tick();
  EXPECT_EQ(lc->current()->candidate, nullptr);
  EXPECT_THAT(details_.back(), HasSubstr("p99"));
}

TEST_F(ModelLifecycleTest, ShadowIsNeverRolledBackAutomatically) {
  auto lc = OpenWithTwo();
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kShadow, {}, admin_).ok());
  Compare(*lc->current(), 1000, 1000, 5000);
  clock_.AdvanceMicros(3600 * kSecond);
  lc->Tick();
  EXPECT_EQ(lc->current()->mode, CandidateMode::kShadow);
}

TEST_F(ModelLifecycleTest, RestartRestoresTheActiveSetAndRollout) {
  {
    auto lc = OpenWithTwo();
    ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kStaged, {}, admin_).ok());
    Compare(*lc->current(), 200, 0);
    clock_.AdvanceMicros(60 * kSecond);
    lc->Tick();
    ASSERT_DOUBLE_EQ(lc->current()->traffic_weight, 0.5);
  }
  auto lc = Open();
  ASSERT_TRUE(lc->Start(std::nullopt).ok());
  auto set = lc->current();
  EXPECT_EQ(Version(set->primary), "1");
  EXPECT_EQ(Version(set->candidate), "2");
  EXPECT_EQ(set->mode, CandidateMode::kCanary);
  EXPECT_DOUBLE_EQ(set->traffic_weight, 0.5);
  // The stage's dwell starts again after the restart, then the rollout goes on.
  Compare(*set, 200, 0);
  clock_.AdvanceMicros(60 * kSecond);
  lc->Tick();
  EXPECT_DOUBLE_EQ(lc->current()->traffic_weight, 1.0);
}

TEST_F(ModelLifecycleTest, ConfiguredModelIsRegisteredAndActivatedOnlyWhenItChanges) {
  ModelUpload configured{"aml", "1", testing::ModelA(), "", "", "", ""};
  {
    auto lc = Open();
    ASSERT_TRUE(lc->Start(configured).ok());
    EXPECT_EQ(Version(lc->current()->primary), "1");
    ASSERT_TRUE(lc->Register({"aml", "2", testing::ModelB(), "", "", "", ""}, admin_).ok());
    ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kPrimary, {}, admin_).ok());
  }
  {
    // Same configuration: the persisted set (v2 via the API) wins.
    auto lc = Open();
    ASSERT_TRUE(lc->Start(configured).ok());
    EXPECT_EQ(Version(lc->current()->primary), "2");
  }
  {
    // A changed model under the same version is refused at start-up, naming model.version.
    auto lc = Open();
    Status s = lc->Start(ModelUpload{"aml", "1", testing::ModelB(), "", "", "", ""});
    EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
    EXPECT_EQ(s.field(), "model.version");
  }
  {
    // A new configured version becomes the primary.
    auto lc = Open();
    ASSERT_TRUE(lc->Start(ModelUpload{"aml", "3", testing::ModelB(), "", "", "", ""}).ok());
    EXPECT_EQ(Version(lc->current()->primary), "3");
  }
  {
    // A configured model the schema cannot feed is refused, naming model.path.
    std::string bad = testing::ModelA();
    bad.replace(bad.find("velocity"), 8, "nosuchft");
    auto lc = Open();
    Status s = lc->Start(ModelUpload{"aml", "4", bad, "", "", "", ""});
    EXPECT_EQ(s.field(), "model.path");
    EXPECT_THAT(s.message(), HasSubstr("nosuchft"));
  }
}

TEST_F(ModelLifecycleTest, StatusJsonShowsRegistryActiveSetAndDivergence) {
  auto lc = OpenWithTwo();
  ASSERT_TRUE(lc->Activate("aml", "2", ActivateMode::kShadow, {}, admin_).ok());
  Compare(*lc->current(), 10, 3);
  std::string out;
  JsonWriter w(out);
  ASSERT_TRUE(lc->WriteStatusJson(w).ok());
  EXPECT_THAT(out, HasSubstr("\"role\":\"primary\""));
  EXPECT_THAT(out, HasSubstr("\"role\":\"shadow\""));
  EXPECT_THAT(out, HasSubstr("\"mode\":\"shadow\""));
  EXPECT_THAT(out, HasSubstr("\"comparisons\":10,\"outcome_changes\":3"));
  EXPECT_THAT(out, HasSubstr("\"outcome_change_rate\":0.3"));
  lc->Tick();
  EXPECT_THAT(metrics_.RenderPrometheus(),
              HasSubstr("verdict_lifecycle_candidate_outcome_changes 3"));
}

}  // namespace
}  // namespace verdict::lifecycle
