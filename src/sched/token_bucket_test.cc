#include "sched/token_bucket.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(TokenBucketTest, FullBucketGrantsTheBurstThenRefusesWithTheWaitForTheNextToken) {
  TokenBucket bucket(/*rate_per_s=*/100, /*burst=*/5);  // one token per 10 ms
  const int64_t t0 = 1'000'000;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(bucket.TryTake(t0), 0) << i;
  EXPECT_EQ(bucket.TryTake(t0), 10'000);
  EXPECT_EQ(bucket.WaitUs(t0), 10'000);
  EXPECT_EQ(bucket.TryTake(t0 + 4'000), 6'000);  // refusals take nothing
  EXPECT_EQ(bucket.TryTake(t0 + 10'000), 0);
  EXPECT_EQ(bucket.TryTake(t0 + 10'000), 10'000);
}

TEST(TokenBucketTest, RefillsAtTheRateUpToTheBurstOnly) {
  TokenBucket bucket(1000, 3);  // one token per ms
  int64_t t = 0;
  for (int i = 0; i < 3; ++i) ASSERT_EQ(bucket.TryTake(t), 0);
  ASSERT_GT(bucket.TryTake(t), 0);
  t += 60'000'000;  // a minute idle refills to the burst, not beyond
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.TryTake(t), 0) << i;
  EXPECT_EQ(bucket.TryTake(t), 1'000);
  // Steady state: exactly `rate` grants per second (the first one after 1 ms).
  int granted = 0;
  for (int64_t us = 0; us <= 1'000'000; us += 100) granted += bucket.TryTake(t + us) == 0;
  EXPECT_EQ(granted, 1000);
}

TEST(TokenBucketTest, BatchLargerThanTheBurstPassesFromAFullBucketAndRunsIntoDebt) {
  TokenBucket bucket(10, 4);  // 100 ms per token
  EXPECT_EQ(bucket.TryTake(0, 20), 0);
  // 20 tokens taken from 4: the bucket owes 16 more (1.6 s), then refills to one token.
  EXPECT_EQ(bucket.WaitUs(0), 1'700'000);
  EXPECT_EQ(bucket.TryTake(1'699'999), 1);
  EXPECT_EQ(bucket.TryTake(1'700'000), 0);
  // Three tokens at once need three in the bucket.
  EXPECT_EQ(bucket.TryTake(1'800'000, 3), 200'000);
}

TEST(TokenBucketTest, UnlimitedAlwaysGrants) {
  TokenBucket bucket(0, 0);
  EXPECT_TRUE(bucket.unlimited());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(bucket.TryTake(0, 1000), 0);
  EXPECT_EQ(bucket.WaitUs(0), 0);
}

}  // namespace
}  // namespace verdict
