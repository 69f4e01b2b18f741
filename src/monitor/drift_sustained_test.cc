// Drift that does not cry wolf: only accounts with history count, a level holds once sustained,
// level 3 freezes only when configured, and a freeze is put on record, restored and forgotten
// through the DriftRecorder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "monitor/drift_monitor.h"
#include "monitor/monitor_test_util.h"

namespace verdict::monitor {
namespace {

using ::testing::ElementsAre;

constexpr int64_t kOneSecond = kMicrosPerSecond;

// The engine's feature order here: the reference's a and b, and the account's age in days.
constexpr std::string_view kFeaturesWithAge[] = {"a", "b", "sender_account_age_days"};

// Remembers what a monitor put on record, and keeps freezes as the engine's recorder does.
class FakeRecorder final : public DriftRecorder {
 public:
  Status Record(const DriftSubject& subject, const DriftRecord& record) override {
    actions.push_back(record.action);
    if (record.action == "drift.freeze") {
      kept[Key(subject)] = PersistedFreeze{record.time_us, record.drift_score};
    }
    return Status::Ok();
  }
  Result<std::optional<PersistedFreeze>> FindFreeze(const DriftSubject& subject) override {
    auto it = kept.find(Key(subject));
    if (it == kept.end()) return std::optional<PersistedFreeze>();
    return std::optional<PersistedFreeze>(it->second);
  }
  Status ForgetFreeze(const DriftSubject& subject) override {
    if (!forget_status.ok()) return forget_status;
    kept.erase(Key(subject));
    return Status::Ok();
  }
  static std::string Key(const DriftSubject& s) {
    return std::string(s.scope) + "|" + std::string(s.model_name) + "|" +
           std::string(s.model_version);
  }

  std::vector<std::string> actions;
  std::map<std::string, PersistedFreeze> kept;
  Status forget_status = Status::Ok();
};

class DriftSustainedTest : public ::testing::Test {
 protected:
  // One 1 s window, so that each second is one window of its own.
  static DriftOptions OneSecondWindows() {
    DriftOptions options;
    options.windows_s = {1};
    options.count_windows = {};
    return options;
  }

  std::unique_ptr<DriftMonitor> Make(const DriftOptions& options) {
    auto monitor = DriftMonitor::Create(options, testing_util::UniformReference(), kFeaturesWithAge,
                                        "aml", "7", metrics_, clock_);
    EXPECT_TRUE(monitor.ok()) << monitor.status().ToString();
    return std::move(monitor).value();
  }

  // n decisions on senders known for `age_days`: like the reference, or (drifted) every score
  // and feature at the top of its range.
  static void Feed(DriftMonitor& monitor, int n, bool drifted, double age_days = 30) {
    for (int i = 0; i < n; ++i) {
      const double u = drifted ? 0.999 : (i + 0.5) / n;
      const double features[] = {u, 1 - u, age_days};
      monitor.Observe(features, u);
    }
  }

  // Feeds one second of traffic per entry and returns the level after each.
  std::vector<int> Levels(DriftMonitor& monitor, std::initializer_list<bool> drifted_seconds) {
    std::vector<int> levels;
    for (bool drifted : drifted_seconds) {
      Feed(monitor, 1000, drifted);
      monitor.Tick(t_);
      levels.push_back(monitor.Snapshot().level);
      t_ += kOneSecond;
    }
    return levels;
  }

  MetricsRegistry metrics_;
  ManualClock clock_{1'000'000 * kOneSecond};
  int64_t t_ = 1'000'000 * kOneSecond;
};

TEST_F(DriftSustainedTest, DecisionsOnNewAccountsAreCountedApartAndNeverJudged) {
  DriftOptions options = OneSecondWindows();
  options.escalate_after_windows = 1;
  options.freeze_model = true;
  auto monitor = Make(options);
  // A fresh engine: every sender is new, and its traffic looks nothing like the reference.
  Feed(*monitor, 5000, /*drifted=*/true, /*age_days=*/0);
  Feed(*monitor, 100, /*drifted=*/true, /*age_days=*/6.9);
  monitor->Tick(t_);
  DriftSnapshot snap = monitor->Snapshot();
  EXPECT_EQ(snap.windows[0].new_accounts, 5100u);
  EXPECT_EQ(snap.windows[0].decisions, 0u);
  EXPECT_FALSE(snap.windows[0].judged);
  EXPECT_EQ(snap.level, 0);
  EXPECT_FALSE(monitor->frozen());
  // Senders known for a week count.
  Feed(*monitor, 1000, /*drifted=*/false, /*age_days=*/7);
  monitor->Tick(t_ + kOneSecond);
  snap = monitor->Snapshot();
  EXPECT_EQ(snap.windows[0].decisions, 1000u);
  EXPECT_EQ(snap.windows[0].new_accounts, 0u);
  EXPECT_TRUE(snap.windows[0].judged);
}

TEST_F(DriftSustainedTest, AFeatureListWithoutTheAccountAgeIsRefusedWhenHistoryIsRequired) {
  const std::string_view without_age[] = {"a", "b"};
  auto monitor = DriftMonitor::Create(DriftOptions{}, testing_util::UniformReference(), without_age,
                                      "aml", "7", metrics_, clock_);
  ASSERT_FALSE(monitor.ok());
  EXPECT_EQ(monitor.status().field(), "drift.min_account_history_days");
}

TEST_F(DriftSustainedTest, OneDriftedWindowDoesNotEscalate) {
  DriftOptions options = OneSecondWindows();
  options.freeze_model = true;
  auto monitor = Make(options);
  // Three windows each, the default: a lone drifted window (or two) among normal ones never
  // raises the level.
  EXPECT_THAT(Levels(*monitor, {false, false, true, false, true, true, false}),
              ElementsAre(0, 0, 0, 0, 0, 0, 0));
  EXPECT_FALSE(monitor->frozen());
  EXPECT_TRUE(monitor->Snapshot().alerts.empty());
}

TEST_F(DriftSustainedTest, SustainedDriftEscalatesAfterTheConfiguredWindows) {
  DriftOptions options = OneSecondWindows();
  options.freeze_model = true;
  auto monitor = Make(options);
  EXPECT_THAT(Levels(*monitor, {false, true, true, true}), ElementsAre(0, 0, 0, 3));
  EXPECT_TRUE(monitor->frozen());
}

TEST_F(DriftSustainedTest, LevelThreeWithoutFreezeAlertsAndTheModelKeepsDeciding) {
  DriftOptions options = OneSecondWindows();
  options.escalate_after_windows = 1;
  auto monitor = Make(options);
  FakeRecorder recorder;
  ASSERT_TRUE(monitor->AttachRecorder(&recorder).ok());
  EXPECT_THAT(Levels(*monitor, {true, true}), ElementsAre(3, 3));
  EXPECT_FALSE(monitor->frozen());
  const DriftSnapshot snap = monitor->Snapshot();
  size_t level_3_alerts = 0;
  for (const DriftAlert& a : snap.alerts) level_3_alerts += a.kind == "level_3" ? 1 : 0;
  EXPECT_EQ(level_3_alerts, 1u) << "one alert per rise to level 3";
  EXPECT_THAT(recorder.actions, ElementsAre("drift.alert"));
  EXPECT_TRUE(recorder.kept.empty());
}

TEST_F(DriftSustainedTest, AFreezeIsKeptRestoredByTheNextMonitorAndForgottenWhenCleared) {
  DriftOptions options = OneSecondWindows();
  options.escalate_after_windows = 1;
  options.freeze_model = true;
  FakeRecorder recorder;
  {
    auto monitor = Make(options);
    ASSERT_TRUE(monitor->AttachRecorder(&recorder).ok());
    Levels(*monitor, {true});
    ASSERT_TRUE(monitor->frozen());
  }
  EXPECT_THAT(recorder.actions, ElementsAre("drift.freeze"));
  ASSERT_EQ(recorder.kept.size(), 1u);

  // The next run's monitor of the same version is frozen before it sees a decision.
  auto restarted = Make(options);
  ASSERT_TRUE(restarted->AttachRecorder(&recorder).ok());
  EXPECT_TRUE(restarted->frozen());
  EXPECT_EQ(restarted->Snapshot().level, 3);
  EXPECT_THAT(Levels(*restarted, {false}), ElementsAre(3)) << "normal traffic does not lift it";

  // A clear the recorder cannot make lasting leaves the freeze in force.
  recorder.forget_status = Status(StatusCode::kUnavailable, "journal failed closed");
  EXPECT_FALSE(restarted->ClearFreeze("admin", t_).ok());
  EXPECT_TRUE(restarted->frozen());
  recorder.forget_status = Status::Ok();
  ASSERT_TRUE(restarted->ClearFreeze("admin", t_).ok());
  EXPECT_FALSE(restarted->frozen());
  EXPECT_TRUE(recorder.kept.empty());
  auto after_clear = Make(options);
  ASSERT_TRUE(after_clear->AttachRecorder(&recorder).ok());
  EXPECT_FALSE(after_clear->frozen());
}

TEST_F(DriftSustainedTest, BadHistoryAndEscalationSettingsAreRefusedByName) {
  DriftOptions bad;
  bad.min_account_history_days = -1;
  EXPECT_EQ(ValidateDriftOptions(bad).field(), "drift.min_account_history_days");
  bad = DriftOptions{};
  bad.escalate_after_windows = 0;
  EXPECT_EQ(ValidateDriftOptions(bad).field(), "drift.escalate_after_windows");
}

}  // namespace
}  // namespace verdict::monitor
