#include "load/latency_histogram.h"

#include <gtest/gtest.h>

#include <random>

namespace load {
namespace {

TEST(LatencyHistogramTest, BucketsCoverValuesWithinTwoPercent) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{127}, int64_t{128}, int64_t{129}, int64_t{1000},
                    int64_t{123456}, int64_t{999'999'999}}) {
    size_t b = LatencyHistogram::BucketOf(v);
    int64_t upper = LatencyHistogram::UpperEdge(b);
    EXPECT_GE(upper, v) << v;
    EXPECT_LE(static_cast<double>(upper - v), 0.02 * static_cast<double>(v) + 1) << v;
    if (b > 0) {
      EXPECT_LT(LatencyHistogram::UpperEdge(b - 1), v) << v;
    }
  }
}

TEST(LatencyHistogramTest, PercentilesOfAKnownDistribution) {
  LatencyHistogram h;
  for (int64_t v = 1; v <= 10000; ++v) h.Record(v);
  EXPECT_EQ(h.count(), 10000u);
  EXPECT_EQ(h.max(), 10000);
  EXPECT_NEAR(static_cast<double>(h.Percentile(0.5)), 5000, 5000 * 0.02);
  EXPECT_NEAR(static_cast<double>(h.Percentile(0.99)), 9900, 9900 * 0.02);
  EXPECT_GE(h.Percentile(0.99), 9900);  // never understates
  EXPECT_EQ(h.Percentile(1.0), 10000);
  LatencyHistogram other;
  other.Record(50000);
  h.Merge(other);
  EXPECT_EQ(h.max(), 50000);
  EXPECT_EQ(h.Percentile(1.0), 50000);
}

}  // namespace
}  // namespace load
