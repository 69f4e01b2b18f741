#include "features/sliding_window.h"

#include <gtest/gtest.h>

#include <random>

namespace verdict {
namespace {

constexpr int64_t kHour = 3600LL * 1'000'000;

SlidingWindows::Stats Brute(const std::vector<std::pair<int64_t, double>>& events, int64_t as_of,
                            int64_t length) {
  SlidingWindows::Stats s;
  for (const auto& [ts, amount] : events) {
    if (ts <= as_of && ts > as_of - length) {
      ++s.count;
      s.sum += amount;
    }
  }
  return s;
}

TEST(SlidingWindowsTest, WindowEdgesAreHalfOpen) {
  SlidingWindows w({kHour, 24 * kHour}, 0);
  w.Add(0, 10);
  SlidingWindows::Stats s[2];
  w.Query(kHour - 1, s);  // still inside (as_of - 1h, as_of]
  EXPECT_EQ(s[0].count, 1);
  EXPECT_EQ(s[0].sum, 10);
  w.Query(kHour, s);  // exactly one hour later: out of the 1 h window, in the 24 h one
  EXPECT_EQ(s[0].count, 0);
  EXPECT_EQ(s[0].sum, 0);
  EXPECT_EQ(s[1].count, 1);
  w.Query(24 * kHour, s);
  EXPECT_EQ(s[1].count, 0);
  EXPECT_EQ(w.retained_events(), 0u);
}

TEST(SlidingWindowsTest, LateEventsAreCountedWhereTheyBelong) {
  SlidingWindows w({kHour, 24 * kHour}, kHour);
  SlidingWindows::Stats s[2];
  w.Query(10 * kHour, s);
  w.Add(10 * kHour, 5);
  w.Add(9 * kHour + 1, 7);  // arrives late
  w.Query(10 * kHour, s);
  EXPECT_EQ(s[0].count, 2);
  EXPECT_EQ(s[0].sum, 12);
  w.Query(9 * kHour + 2, s);  // a query in the past sees only what was before it
  EXPECT_EQ(s[0].count, 1);
  EXPECT_EQ(s[0].sum, 7);
  w.Query(10 * kHour + kHour / 2, s);
  EXPECT_EQ(s[0].count, 1);
  EXPECT_EQ(s[0].sum, 5);
}

TEST(SlidingWindowsTest, MatchesBruteForceOnRandomStreams) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 20; ++trial) {
    SlidingWindows w({kHour, 24 * kHour}, 2 * kHour);  // arrivals are at most 2 h late
    std::vector<std::pair<int64_t, double>> events;
    int64_t now = 0;
    for (int i = 0; i < 500; ++i) {
      now += static_cast<int64_t>(rng() % (3 * kHour));
      int64_t ts = now;
      if (rng() % 10 == 0) ts -= static_cast<int64_t>(rng() % (2 * kHour));  // out of order
      SlidingWindows::Stats s[2];
      w.Query(ts, s);
      for (int k = 0; k < 2; ++k) {
        SlidingWindows::Stats expect = Brute(events, ts, k == 0 ? kHour : 24 * kHour);
        ASSERT_EQ(s[k].count, expect.count) << trial << " " << i;
        ASSERT_NEAR(s[k].sum, expect.sum, 1e-6);
      }
      double amount = static_cast<double>(rng() % 100000) / 100.0;
      w.Add(ts, amount);
      events.emplace_back(ts, amount);
    }
  }
}

}  // namespace
}  // namespace verdict
