#include "monitor/drift_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "monitor/drift_json.h"
#include "monitor/drift_monitor.h"
#include "monitor/monitor_test_util.h"

namespace verdict::monitor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testing_util::kEngineFeatures;
using testing_util::kNaN;
using testing_util::UniformReference;

// Row i of n: feature a and the score uniform on [0, 1) except a share `shifted` at 0.99;
// feature b always matches its reference.
struct Row {
  double features[3];
  double score;
};
Row MakeRow(int i, int n, double shifted) {
  const int moved = static_cast<int>(std::lround(n * shifted));
  const double u = i < moved ? 0.99 : (i - moved + 0.5) / (n - moved);
  const double b = 1 - (i + 0.5) / n;
  return {{u, 42.0, b}, u};
}

TEST(DriftReportTest, MatchesTheLiveMonitorOnTheSameRows) {
  DriftOptions options = testing_util::ImmediateOptions();
  auto builder = DriftReportBuilder::Create(UniformReference(), kEngineFeatures);
  ASSERT_TRUE(builder.ok()) << builder.status().ToString();
  MetricsRegistry metrics;
  ManualClock clock(1'000'000 * kMicrosPerSecond);
  auto monitor = DriftMonitor::Create(options, UniformReference(), kEngineFeatures, "aml", "7",
                                      metrics, clock);
  ASSERT_TRUE(monitor.ok());
  constexpr int kRows = 3000;
  for (int i = 0; i < kRows; ++i) {
    const Row r = MakeRow(i, kRows, 0.2);
    builder->AddRow(r.features, r.score);
    (*monitor)->Observe(r.features, r.score);
  }
  (*monitor)->Tick(clock.NowMicros());
  const DriftSnapshot live = (*monitor)->Snapshot();
  const DriftReport report = builder->Build(options);

  EXPECT_EQ(report.rows, 3000u);
  EXPECT_EQ(report.reference_rows, 10000u);
  ASSERT_EQ(report.features.size(), 2u);
  EXPECT_EQ(report.features[0].name, "a");
  EXPECT_EQ(report.features[1].name, "b");
  const WindowReport& window = live.windows.front();
  ASSERT_EQ(window.decisions, 3000u);
  // The binned statistics are the monitor's; KS and W1 come from the raw values.
  auto same_bins = [](const DriftStatistics& offline, const DriftStatistics& online) {
    EXPECT_EQ(offline.count, online.count);
    EXPECT_DOUBLE_EQ(offline.psi, online.psi);
    EXPECT_DOUBLE_EQ(offline.kl, online.kl);
    EXPECT_DOUBLE_EQ(offline.js, online.js);
    EXPECT_TRUE(offline.exact);
    EXPECT_FALSE(online.exact);
    // The binned KS is a lower bound of the sample statistic.
    EXPECT_GE(offline.ks + 1e-12, online.ks);
  };
  same_bins(report.score.statistics, window.score);
  same_bins(report.features[0].statistics, window.features[0]);
  same_bins(report.features[1].statistics, window.features[1]);
  EXPECT_DOUBLE_EQ(report.drift_score, window.drift_score);
  EXPECT_TRUE(report.judged);
  EXPECT_EQ(report.level, live.level);
  EXPECT_GE(report.level, 2);  // 20% of the mass moved into one bin

  // Feature a moved, b did not.
  EXPECT_TRUE(report.features[0].drifted());
  EXPECT_THAT(report.features[0].flags, ::testing::Contains("psi_alert"));
  EXPECT_FALSE(report.features[1].drifted()) << report.features[1].statistics.psi;
  EXPECT_EQ(report.DriftedFeatures(), 1u);
  // The histograms add up, on the reference's bins.
  uint64_t total = 0;
  for (uint64_t c : report.features[0].current_counts) total += c;
  EXPECT_EQ(total, 3000u);
  EXPECT_EQ(report.features[0].edges.size(), report.features[0].reference_counts.size() + 1);
}

TEST(DriftReportTest, MatchingDataIsLevelZeroAndMissingValuesAreCounted) {
  DriftOptions options;
  auto builder = DriftReportBuilder::Create(UniformReference(), kEngineFeatures);
  ASSERT_TRUE(builder.ok());
  constexpr int kRows = 2000;
  for (int i = 0; i < kRows; ++i) {
    Row r = MakeRow(i, kRows, 0);
    if (i % 10 == 0) r.features[2] = kNaN;
    builder->AddRow(r.features, i % 100 == 0 ? kNaN : r.score);
  }
  const DriftReport report = builder->Build(options);
  EXPECT_EQ(report.level, 0);
  EXPECT_LT(report.drift_score, options.l1);
  EXPECT_EQ(report.score.statistics.missing, 20u);
  EXPECT_EQ(report.score.statistics.count, 1980u);
  EXPECT_EQ(report.features[1].statistics.missing, 200u);
  EXPECT_GT(report.score.statistics.ks_p_value, 0.5);
  EXPECT_EQ(report.DriftedFeatures(), 0u);
}

TEST(DriftReportTest, FewRowsDoNotSetTheLevel) {
  DriftOptions options;
  options.min_count = 500;
  auto builder = DriftReportBuilder::Create(UniformReference(), kEngineFeatures);
  ASSERT_TRUE(builder.ok());
  for (int i = 0; i < 100; ++i) {
    const Row r = MakeRow(i, 100, 1.0);  // everything in one bin
    builder->AddRow(r.features, r.score);
  }
  const DriftReport report = builder->Build(options);
  EXPECT_FALSE(report.judged);
  EXPECT_GT(report.drift_score, options.l3);
  EXPECT_EQ(report.level, 0);
  EXPECT_FALSE(report.features[0].drifted());  // flags need min_count values too
}

TEST(DriftReportTest, RefusesAReferenceFeatureTheEngineLacks) {
  constexpr std::string_view kOther[] = {"a", "c"};
  auto builder = DriftReportBuilder::Create(UniformReference(), kOther);
  ASSERT_FALSE(builder.ok());
  EXPECT_EQ(builder.status().field(), "features[1].name");
  EXPECT_THAT(builder.status().message(), HasSubstr("'b'"));
}

TEST(DriftReportTest, JsonNamesTheDriftedFeatures) {
  DriftOptions options;
  auto builder = DriftReportBuilder::Create(UniformReference(), kEngineFeatures);
  ASSERT_TRUE(builder.ok());
  for (int i = 0; i < 1000; ++i) {
    const Row r = MakeRow(i, 1000, 0.3);
    builder->AddRow(r.features, r.score);
  }
  DriftReport report = builder->Build(options);
  report.model_name = "aml";
  report.model_version = "3";
  report.input = "day.csv";
  const std::string json = DriftReportToJson(report, options);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS) << json;
  EXPECT_EQ(std::string_view(root["model"]["version"].get_string()), "3");
  EXPECT_EQ(int64_t(root["rows"]), 1000);
  EXPECT_EQ(int64_t(root["level"]), report.level);
  std::vector<std::string> drifted;
  for (simdjson::dom::element e : root["drifted_features"].get_array()) {
    drifted.emplace_back(std::string_view(e.get_string()));
  }
  EXPECT_THAT(drifted, ElementsAre("a"));
  EXPECT_DOUBLE_EQ(double(root["features"]["a"]["psi"]), report.features[0].statistics.psi);
  EXPECT_TRUE(bool(root["score"]["exact"]));
}

}  // namespace
}  // namespace verdict::monitor
