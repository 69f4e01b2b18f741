#include "monitor/drift_monitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <thread>
#include <vector>

#include "monitor/drift_json.h"
#include "monitor/monitor_test_util.h"

namespace verdict::monitor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kSecond = kMicrosPerSecond;
using testing_util::ImmediateOptions;
using testing_util::kEngineFeatures;
using testing_util::UniformReference;

class DriftMonitorTest : public ::testing::Test {
 protected:
  std::unique_ptr<DriftMonitor> Make(const DriftOptions& options) {
    auto monitor = DriftMonitor::Create(options, UniformReference(), kEngineFeatures, "aml", "7",
                                        metrics_, clock_);
    EXPECT_TRUE(monitor.ok()) << monitor.status().ToString();
    return std::move(monitor).value();
  }

  // n decisions whose score (and feature a) is uniform on [0, 1) except that a share
  // `shifted` of them sits at 0.99.
  static void Feed(DriftMonitor& monitor, int n, double shifted) {
    const int moved = static_cast<int>(std::lround(n * shifted));
    for (int i = 0; i < n; ++i) {
      const double u = i < moved ? 0.99 : (i - moved + 0.5) / (n - moved);
      const double features[] = {u, 42.0, 1 - u};
      monitor.Observe(features, u);
    }
  }

  MetricsRegistry metrics_;
  ManualClock clock_{1'000'000 * kSecond};
};

TEST_F(DriftMonitorTest, MatchingTrafficStaysAtLevelZero) {
  DriftOptions options = ImmediateOptions();
  auto monitor = Make(options);
  EXPECT_EQ(monitor->feature_names(), (std::vector<std::string>{"a", "b"}));
  for (int s = 0; s < 5; ++s) {
    Feed(*monitor, 500, 0);
    monitor->Tick(clock_.NowMicros() + s * kSecond);
  }
  const DriftSnapshot snap = monitor->Snapshot();
  EXPECT_EQ(snap.level, 0);
  EXPECT_FALSE(snap.frozen);
  ASSERT_EQ(snap.windows.size(), 4u);  // 60s, 300s, last_1000, last_10000
  EXPECT_EQ(snap.windows[0].name, "60s");
  EXPECT_EQ(snap.windows[0].decisions, 2500u);
  EXPECT_TRUE(snap.windows[0].judged);
  EXPECT_LT(snap.windows[0].drift_score, 0.01);
  EXPECT_LT(snap.windows[0].features[0].psi, 0.01);
  EXPECT_EQ(snap.windows[0].features[0].count, 2500u);
  EXPECT_EQ(snap.windows[2].name, "last_1000");
  EXPECT_EQ(snap.windows[2].decisions, 1000u);  // two whole 500-decision buckets
  EXPECT_EQ(snap.windows[3].decisions, 2500u);  // all history there is
  EXPECT_FALSE(monitor->frozen());
}

TEST_F(DriftMonitorTest, TimeWindowsForgetOldBuckets) {
  DriftOptions options = ImmediateOptions();
  options.windows_s = {10, 30};
  options.count_windows = {};
  auto monitor = Make(options);
  const int64_t t0 = clock_.NowMicros();
  Feed(*monitor, 300, 0);
  monitor->Tick(t0);
  Feed(*monitor, 200, 0);
  monitor->Tick(t0 + 5 * kSecond);
  DriftSnapshot snap = monitor->Snapshot();
  EXPECT_EQ(snap.windows[0].decisions, 500u);
  monitor->Tick(t0 + 10 * kSecond);  // the first bucket leaves the 10 s window
  snap = monitor->Snapshot();
  EXPECT_EQ(snap.windows[0].decisions, 200u);
  EXPECT_EQ(snap.windows[1].decisions, 500u);
  monitor->Tick(t0 + 35 * kSecond);  // and the 30 s one; the second bucket too
  snap = monitor->Snapshot();
  EXPECT_EQ(snap.windows[0].decisions, 0u);
  EXPECT_EQ(snap.windows[1].decisions, 0u);
  EXPECT_FALSE(snap.windows[1].judged);
}

TEST_F(DriftMonitorTest, MissingValuesAndThinWindowsDoNotSetTheLevel) {
  DriftOptions options = ImmediateOptions();
  options.min_count = 1000;
  auto monitor = Make(options);
  for (int i = 0; i < 100; ++i) {
    const double features[] = {std::numeric_limits<double>::quiet_NaN(), 0, 0.5};
    monitor->Observe(features, 0.99);  // all in one bin: strong drift, but too few
  }
  monitor->Tick(clock_.NowMicros());
  const DriftSnapshot snap = monitor->Snapshot();
  EXPECT_FALSE(snap.windows[0].judged);
  EXPECT_GT(snap.windows[0].drift_score, 0.3);
  EXPECT_EQ(snap.level, 0);
  EXPECT_EQ(snap.windows[0].features[0].missing, 100u);
  EXPECT_EQ(snap.windows[0].features[0].count, 0u);
}

TEST_F(DriftMonitorTest, LevelsRiseToFreezeAndRunTheHookUntilCleared) {
  const auto marker =
      std::filesystem::temp_directory_path() / ("verdict_drift_hook_" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  DriftOptions options = ImmediateOptions();
  options.windows_s = {1};
  options.count_windows = {};
  options.retrain_command = {"/usr/bin/touch", marker.string()};
  options.freeze_model = true;
  auto monitor = Make(options);
  int64_t t = clock_.NowMicros();
  std::vector<int> levels;
  // Growing shares of shifted traffic: each second is judged on its own (1 s window).
  for (double shifted : {0.0, 0.1, 0.2, 0.5}) {
    Feed(*monitor, 1000, shifted);
    monitor->Tick(t);
    levels.push_back(monitor->Snapshot().level);
    t += kSecond;
  }
  EXPECT_THAT(levels, ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(monitor->frozen());
  DriftSnapshot snap = monitor->Snapshot();
  // The jump to half the traffic shifted also passes both escalation marks at once.
  ASSERT_FALSE(snap.alerts.empty());
  EXPECT_EQ(snap.alerts[0].kind, "drift_freeze");
  EXPECT_EQ(snap.retrain.runs, 1u);  // L2 ran it once; L3 a second later is in the cooldown
  EXPECT_FALSE(snap.level_snapshot.empty());
  for (int i = 0; i < 200 && !std::filesystem::exists(marker); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(std::filesystem::exists(marker));
  // The file can exist before the command has exited: tick (which reaps it) until it has.
  std::string status;
  for (int i = 0; i < 200; ++i) {
    monitor->Tick(t);
    status = monitor->Snapshot().retrain.last_status;
    if (status != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(status, HasSubstr("exit 0"));

  // Frozen stays frozen even once traffic is back to normal...
  Feed(*monitor, 1000, 0);
  t += kSecond;
  monitor->Tick(t);
  EXPECT_TRUE(monitor->frozen());
  EXPECT_EQ(monitor->Snapshot().level, 3);
  // ...until an operator clears it.
  ASSERT_TRUE(monitor->ClearFreeze("admin-key", t).ok());
  EXPECT_FALSE(monitor->frozen());
  snap = monitor->Snapshot();
  EXPECT_TRUE(snap.alerts.empty());
  EXPECT_THAT(snap.events.back().what, HasSubstr("cleared by admin-key"));
  Feed(*monitor, 1000, 0);
  t += kSecond;
  monitor->Tick(t);
  EXPECT_EQ(monitor->Snapshot().level, 0);
  EXPECT_FALSE(monitor->frozen());

  const std::string json = DriftSnapshotToJson(monitor->Snapshot(), *monitor, options);
  EXPECT_THAT(json, HasSubstr("\"level\":0"));
  EXPECT_THAT(json, HasSubstr("\"features\":{\"a\":{"));
  EXPECT_THAT(metrics_.RenderPrometheus(), HasSubstr("verdict_drift_level{model=\"aml\""));
  std::filesystem::remove(marker);
}

DriftOptions EscalationOptions() {
  DriftOptions options = ImmediateOptions();
  options.windows_s = {1};
  options.count_windows = {};
  options.l1 = 50;  // levels out of the way
  options.l2 = 60;
  options.l3 = 70;
  options.escalation_first = 0.01;
  options.escalation_second = 2.0;
  return options;
}

TEST_F(DriftMonitorTest, EscalationWhenTheScoreRisesTwiceWithinTheWindow) {
  auto monitor = Make(EscalationOptions());
  int64_t t = clock_.NowMicros();
  Feed(*monitor, 1000, 0.2);
  monitor->Tick(t);
  const double mild = monitor->Snapshot().drift_score;
  ASSERT_GT(mild, 0.01);
  ASSERT_LT(mild, 2.0);
  EXPECT_TRUE(monitor->Snapshot().alerts.empty());
  t += 10 * kSecond;
  Feed(*monitor, 1000, 1.0);
  monitor->Tick(t);
  const DriftSnapshot snap = monitor->Snapshot();
  ASSERT_GT(snap.drift_score, 2.0);
  ASSERT_EQ(snap.alerts.size(), 1u);
  EXPECT_EQ(snap.alerts[0].kind, "escalation");
  EXPECT_FALSE(monitor->frozen());
}

// A score flipping across the second mark raises an escalation every other tick; the active
// alerts keep the latest kMaxEvents (they grew without bound before).
TEST_F(DriftMonitorTest, RepeatedEscalationsKeepABoundedList) {
  DriftOptions options = EscalationOptions();
  options.escalation_window_s = 1'000'000;
  auto monitor = Make(options);
  int64_t t = clock_.NowMicros();
  for (int cycle = 0; cycle < 200; ++cycle) {
    Feed(*monitor, 1000, 0.2);
    monitor->Tick(t += 2 * kSecond);
    Feed(*monitor, 1000, 1.0);
    monitor->Tick(t += 2 * kSecond);
  }
  const DriftSnapshot snap = monitor->Snapshot();
  EXPECT_EQ(snap.alerts.size(), DriftMonitor::kMaxEvents);
  EXPECT_EQ(snap.alerts.back().since_us, t);
}

TEST_F(DriftMonitorTest, NoEscalationWhenTheSecondRiseComesLate) {
  auto monitor = Make(EscalationOptions());
  int64_t t = clock_.NowMicros();
  for (int s = 0; s < 40; ++s) {  // above the first mark for 40 s
    Feed(*monitor, 1000, 0.2);
    monitor->Tick(t);
    t += kSecond;
  }
  Feed(*monitor, 1000, 1.0);
  monitor->Tick(t);
  EXPECT_GT(monitor->Snapshot().drift_score, 2.0);
  EXPECT_TRUE(monitor->Snapshot().alerts.empty());
}

TEST_F(DriftMonitorTest, ObserveFromManyThreadsCountsEverything) {
  DriftOptions options = ImmediateOptions();
  auto monitor = Make(options);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&] { Feed(*monitor, 2500, 0); });
  for (std::thread& th : threads) th.join();
  monitor->Tick(clock_.NowMicros());
  EXPECT_EQ(monitor->Snapshot().windows[0].decisions, 10000u);
}

TEST_F(DriftMonitorTest, StartRunsTicksOnItsOwnThread) {
  DriftOptions options = ImmediateOptions();
  options.evaluate_interval_ms = 10;
  auto monitor = Make(options);
  Feed(*monitor, 300, 0);
  monitor->Start();
  for (int i = 0; i < 300 && monitor->Snapshot().windows.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(monitor->Snapshot().windows.empty());
}

TEST(DriftMonitorCreateTest, RefusesUnknownFeaturesAndBadOptions) {
  MetricsRegistry metrics;
  ManualClock clock;
  constexpr std::string_view kOnlyA[] = {"a"};
  auto unknown = DriftMonitor::Create(ImmediateOptions(), UniformReference(), kOnlyA, "m", "1",
                                      metrics, clock);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().field(), "features[1].name");
  DriftOptions bad;
  bad.l2 = 0.5;
  bad.l3 = 0.4;
  EXPECT_EQ(ValidateDriftOptions(bad).field(), "drift.l2");
  bad = DriftOptions{};
  bad.retrain_webhook = "https://example.com/x";
  EXPECT_EQ(ValidateDriftOptions(bad).field(), "drift.retrain_webhook");
  EXPECT_TRUE(ValidateDriftOptions(DriftOptions{}).ok());
}

TEST(HttpUrlTest, Parses) {
  auto url = ParseHttpUrl("http://127.0.0.1:9000/hooks/retrain");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, "9000");
  EXPECT_EQ(url->path, "/hooks/retrain");
  EXPECT_FALSE(ParseHttpUrl("http://:9/").ok());
  EXPECT_FALSE(ParseHttpUrl("http://h:x/").ok());
  EXPECT_FALSE(ParseHttpUrl("ftp://h/").ok());
}

}  // namespace
}  // namespace verdict::monitor
