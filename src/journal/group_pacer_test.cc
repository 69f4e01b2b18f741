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
  GroupPacer pacer(400);
  EXPECT_EQ(pacer.DelayUs(1, 64, 0), 0);
  EXPECT_EQ(pacer.RatePerSecond(0), 0);
}

TEST(GroupPacerTest, WaitsAtAHighRateOnly) {
  // 3 entries every 0.5 ms: 6,000/s, so 2.4 expected in 400 µs.
  GroupPacer fast(400);
  int64_t now = Feed(fast, 0, kMs / 2, 3, 30 * kMs);
  EXPECT_NEAR(fast.RatePerSecond(now), 6000, 600);
  EXPECT_EQ(fast.DelayUs(1, 64, now), 400);

  // 1 entry every 0.5 ms: 2,000/s, 0.8 expected: no wait.
  GroupPacer slow(400);
  now = Feed(slow, 0, kMs / 2, 1, 30 * kMs);
  EXPECT_NEAR(slow.RatePerSecond(now), 2000, 200);
  EXPECT_EQ(slow.DelayUs(1, 64, now), 0);
}

TEST(GroupPacerTest, ABigEnoughQueueIsTakenAtOnce) {
  GroupPacer pacer(400);
  int64_t now = Feed(pacer, 0, kMs / 2, 3, 30 * kMs);
  EXPECT_EQ(pacer.DelayUs(63, 64, now), 400);
  EXPECT_EQ(pacer.DelayUs(64, 64, now), 0);
}

TEST(GroupPacerTest, AnIdleSpellEndsTheWaiting) {
  GroupPacer pacer(400);
  int64_t now = Feed(pacer, 0, kMs / 2, 3, 30 * kMs);
  ASSERT_EQ(pacer.DelayUs(1, 64, now), 400);
  // Nothing taken for a second: the first entry after it goes at once.
  now += 1000 * kMs;
  EXPECT_LT(pacer.RatePerSecond(now), 100);
  EXPECT_EQ(pacer.DelayUs(1, 64, now), 0);
}

TEST(GroupPacerTest, ZeroDelayDisablesIt) {
  GroupPacer pacer(0);
  int64_t now = Feed(pacer, 0, kMs / 10, 10, 30 * kMs);
  EXPECT_GT(pacer.RatePerSecond(now), 50'000);
  EXPECT_EQ(pacer.DelayUs(1, 64, now), 0);
}

}  // namespace
}  // namespace verdict::journal
