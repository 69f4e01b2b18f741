#include "monitor/bin_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "monitor/drift_monitor.h"
#include "monitor/monitor_test_util.h"

namespace verdict::monitor {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

#ifdef VERDICT_DRIFT_AVX2
// A caller compiled for AVX2, which the always-inline search needs.
__attribute__((target("avx2"))) size_t Avx2Bin(const double* edges, double x) {
  return PaddedBinAvx2(edges, x);
}
#endif

// Both searches agree with VariableReference::BinOf (std::upper_bound on the interior edges)
// on every bin count, on values equal to an edge, between edges and beyond both ends.
TEST(BinSearchTest, PortableAndAvx2MatchTheReferenceRule) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> normal(0, 100);
  const bool avx2 = CpuHasAvx2();
  for (size_t bins = 1; bins <= kMaxReferenceBins; ++bins) {
    for (int trial = 0; trial < 20; ++trial) {
      VariableReference ref;
      std::vector<double> edges(bins + 1);
      for (double& e : edges) e = std::round(normal(rng));
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
      if (edges.size() < 2) continue;
      ref.edges = edges;
      ref.counts.assign(edges.size() - 1, 0);
      std::vector<double> padded(kPaddedEdges, kInf);
      for (size_t i = 1; i + 1 < edges.size(); ++i) padded[i - 1] = edges[i];
      std::vector<double> values = edges;
      for (double e : edges) {
        values.push_back(std::nextafter(e, -kInf));
        values.push_back(std::nextafter(e, kInf));
      }
      for (int k = 0; k < 50; ++k) values.push_back(normal(rng) * 2);
      values.push_back(std::numeric_limits<double>::max());
      values.push_back(-std::numeric_limits<double>::max());
      values.push_back(-kInf);
      for (double v : values) {
        SCOPED_TRACE(v);
        const size_t want = ref.BinOf(v);
        EXPECT_EQ(PaddedBinPortable(padded.data(), v), want);
#ifdef VERDICT_DRIFT_AVX2
        if (avx2) {
          EXPECT_EQ(Avx2Bin(padded.data(), v), want);
        }
#endif
      }
    }
  }
  (void)avx2;
}

// The monitor counts the same with either search: identical statistics in every window.
TEST(BinSearchTest, MonitorCountsAlikeWithEitherSearch) {
  std::vector<std::string> names = {"a", "b", "c"};
  ReferenceBuilder builder(names);
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> value(0, 1);
  for (int i = 0; i < 5000; ++i) {
    const double row[] = {value(rng), std::round(value(rng)), value(rng) * 100};
    ASSERT_TRUE(builder.AddRow(row, value(rng) / 10).ok());
  }
  const ReferenceDistribution reference = std::move(builder.Build()).value();
  constexpr std::string_view kEngine[] = {"c", "x", "a", "b"};
  MetricsRegistry metrics;
  ManualClock clock(1'000'000 * kMicrosPerSecond);
  auto fast = DriftMonitor::Create(testing_util::ImmediateOptions(), reference, kEngine, "m", "1",
                                   metrics, clock);
  auto portable = DriftMonitor::Create(testing_util::ImmediateOptions(), reference, kEngine, "m",
                                       "2", metrics, clock);
  ASSERT_TRUE(fast.ok() && portable.ok());
  (*portable)->UsePortableSearchForTesting();
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), kInf, -kInf, 0.0};
  for (int i = 0; i < 3000; ++i) {
    double row[] = {value(rng) * 120, 1, value(rng) * 1.3, std::round(value(rng) * 1.2)};
    if (i % 7 == 0) row[i % 4] = specials[(i / 7) % 4];
    const double score = i % 11 == 0 ? std::numeric_limits<double>::quiet_NaN() : value(rng) / 8;
    (*fast)->Observe(row, score);
    (*portable)->Observe(row, score);
  }
  (*fast)->Tick(clock.NowMicros());
  (*portable)->Tick(clock.NowMicros());
  const DriftSnapshot a = (*fast)->Snapshot();
  const DriftSnapshot b = (*portable)->Snapshot();
  ASSERT_EQ(a.windows.size(), b.windows.size());
  for (size_t w = 0; w < a.windows.size(); ++w) {
    EXPECT_EQ(a.windows[w].decisions, b.windows[w].decisions);
    EXPECT_EQ(a.windows[w].drift_score, b.windows[w].drift_score);
    ASSERT_EQ(a.windows[w].features.size(), 3u);
    for (size_t f = 0; f < 3; ++f) {
      EXPECT_EQ(a.windows[w].features[f].count, b.windows[w].features[f].count);
      EXPECT_EQ(a.windows[w].features[f].missing, b.windows[w].features[f].missing);
      EXPECT_EQ(a.windows[w].features[f].psi, b.windows[w].features[f].psi);
      EXPECT_EQ(a.windows[w].features[f].ks, b.windows[w].features[f].ks);
    }
  }
  EXPECT_GT(a.windows[0].features[2].missing, 0u);  // "c": engine index 0 gets the NaNs
  EXPECT_EQ(a.windows[0].decisions, 3000u);
}

}  // namespace
}  // namespace verdict::monitor
