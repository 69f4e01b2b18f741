#include "lifecycle/divergence_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

namespace verdict::lifecycle {
namespace {

TEST(QuantileHistogramTest, QuantilesAreWithinTwoPercent) {
  QuantileHistogram h(1.0);
  EXPECT_EQ(h.Quantile(0.99), 0);
  for (int i = 1; i <= 1000; ++i) h.Observe(i);
  EXPECT_EQ(h.count(), 1000u);
  const double p99 = h.Quantile(0.99);
  EXPECT_GE(p99, 990);
  EXPECT_LE(p99, 990 * 1.02);
  const double p50 = h.Quantile(0.5);
  EXPECT_GE(p50, 500);
  EXPECT_LE(p50, 510);
  EXPECT_EQ(h.Quantile(0.0001), 1.0);  // the smallest value sits exactly on the first bound
}

TEST(QuantileHistogramTest, SmallNaNAndHugeValuesDoNotBreakIt) {
  QuantileHistogram h(1e-6);
  h.Observe(0);
  h.Observe(std::nan(""));
  h.Observe(1e300);
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.Quantile(0.5), 0);
  EXPECT_GT(h.Quantile(1.0), 1e4);
}

TEST(DivergenceStatsTest, CountsOutcomeChangesAndScoreDeltas) {
  DivergenceStats s;
  s.RecordComparison(0.1, Outcome::kAllow, 0.3, Outcome::kAllow);
  s.RecordComparison(0.1, Outcome::kAllow, 0.98, Outcome::kBlock);
  s.RecordComparison(0.9, Outcome::kReview, 0.2, Outcome::kAllow);
  s.RecordComparison(0.5, Outcome::kAllow, 0.5, Outcome::kAllow);
  s.RecordCandidateLatency(7);
  s.RecordCandidateLatency(-3);  // a clock step back counts as 0
  DivergenceSnapshot snap = s.Snapshot();
  EXPECT_EQ(snap.comparisons, 4u);
  EXPECT_EQ(snap.outcome_changes, 2u);
  EXPECT_EQ(snap.candidate_stricter, 1u);
  EXPECT_DOUBLE_EQ(snap.outcome_change_rate(), 0.5);
  EXPECT_NEAR(snap.mean_abs_delta, (0.2 + 0.88 + 0.7 + 0) / 4, 1e-12);
  EXPECT_NEAR(snap.max_abs_delta, 0.88, 1e-12);
  EXPECT_GE(snap.p99_abs_delta, 0.88);
  EXPECT_LE(snap.p99_abs_delta, 0.88 * 1.02);
  EXPECT_EQ(snap.candidate_timings, 2u);
  EXPECT_GE(snap.candidate_p99_us, 7);
}

TEST(DivergenceStatsTest, ConcurrentWritersLoseNothing) {
  DivergenceStats s;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&s] {
      for (int i = 0; i < 10000; ++i) {
        s.RecordComparison(0, Outcome::kAllow, 0.5,
                           i % 10 == 0 ? Outcome::kBlock : Outcome::kAllow);
      }
    });
  }
  for (auto& t : threads) t.join();
  DivergenceSnapshot snap = s.Snapshot();
  EXPECT_EQ(snap.comparisons, 40000u);
  EXPECT_EQ(snap.outcome_changes, 4000u);
  EXPECT_NEAR(snap.mean_abs_delta, 0.5, 1e-9);
}

}  // namespace
}  // namespace verdict::lifecycle
