#include "journal/group_pacer.h"

#include <gtest/gtest.h>

namespace verdict::journal {
namespace {

constexpr int64_t kMs = 1'000'000;

// Takes `per_take` entries every `gap_ns` from `start_ns` for `duration_ns`; returns the end.
int64_t Feed(GroupPacer& pacer, int64_t start_ns, int64_t gap_ns, size_t per_take,
             int64_t duration_ns) {
  int64_t t = start_ns;
  for (; t < start_ns + duration_ns; t += gap_ns) pacer.OnTake(per_take, t);
  return t;
}

TEST(GroupPacerTest, NeverWaitsBeforeAnyRateIsKnown) {
  GroupPacer pacer(400, 5000);
  EXPECT_EQ(pacer.DelayUs(1, 64, 0), 0);
  EXPECT_EQ(pacer.RatePerSecond(0), 0);
}

TEST(GroupPacerTest, WaitsAtAHighRateOnly) {
  // 3 entries every 0.5 ms: 6,000/s, above the 5,000/s threshold.
  GroupPacer fast(1000, 5000);
  int64_t now = Feed(fast, 0, kMs / 2, 3, 30 * kMs);
  EXPECT_NEAR(fast.RatePerSecond(now), 6000, 600);
  EXPECT_EQ(fast.DelayUs(1, 64, now), 1000);

  // 2 entries every 0.5 ms: 4,000/s, below it: no wait, however long the delay.
  GroupPacer slow(1000, 5000);
  now = Feed(slow, 0, kMs / 2, 2, 30 * kMs);
  EXPECT_NEAR(slow.RatePerSecond(now), 4000, 400);
  EXPECT_EQ(slow.DelayUs(1, 64, now), 0);

  // The same 4,000/s above a lower threshold.
  GroupPacer lower(1000, 3000);
  now = Feed(lower, 0, kMs / 2, 2, 30 * kMs);
  EXPECT_EQ(lower.DelayUs(1, 64, now), 1000);
}

TEST(GroupPacerTest, ABigEnoughQueueIsTakenAtOnce) {
  GroupPacer pacer(400, 5000);
  int64_t now = Feed(pacer, 0, kMs / 2, 3, 30 * kMs);
  EXPECT_EQ(pacer.DelayUs(63, 64, now), 400);
  EXPECT_EQ(pacer.DelayUs(64, 64, now), 0);
}

TEST(GroupPacerTest, AnIdleSpellEndsTheWaiting) {
  GroupPacer pacer(400, 5000);
  int64_t now = Feed(pacer, 0, kMs / 2, 3, 30 * kMs);
  ASSERT_EQ(pacer.DelayUs(1, 64, now), 400);
  // Nothing taken for a second: the first entry after it goes at once.
  now += 1000 * kMs;
  EXPECT_LT(pacer.RatePerSecond(now), 100);
  EXPECT_EQ(pacer.DelayUs(1, 64, now), 0);
}

TEST(GroupPacerTest, ZeroDelayDisablesIt) {
  GroupPacer pacer(0, 5000);
  int64_t now = Feed(pacer, 0, kMs / 10, 10, 30 * kMs);
  EXPECT_GT(pacer.RatePerSecond(now), 50'000);
  EXPECT_EQ(pacer.DelayUs(1, 64, now), 0);
}

}  // namespace
}  // namespace verdict::journal
