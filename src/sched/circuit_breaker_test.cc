#include "sched/circuit_breaker.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(CircuitBreakerTest, OpensAfterConsecutiveFailuresProbesAndCloses) {
  CircuitBreakerOptions options;
  options.failures_to_open = 3;
  options.open_for_us = 1000;
  options.probes_to_close = 2;
  CircuitBreaker breaker(options);
  EXPECT_TRUE(breaker.Allow(0));
  breaker.RecordFailure(0);
  breaker.RecordFailure(0);
  breaker.RecordSuccess();  // a success resets the count
  breaker.RecordFailure(0);
  breaker.RecordFailure(0);
  EXPECT_EQ(breaker.state(0), CircuitBreaker::State::kClosed);
  breaker.RecordFailure(10);
  EXPECT_EQ(breaker.state(10), CircuitBreaker::State::kOpen);
  EXPECT_FALSE(breaker.Allow(500));

  // Half-open after open_for_us: one probe at a time.
  EXPECT_EQ(breaker.state(1010), CircuitBreaker::State::kHalfOpen);
  EXPECT_TRUE(breaker.Allow(1010));
  EXPECT_FALSE(breaker.Allow(1010));
  breaker.RecordSuccess();
  EXPECT_TRUE(breaker.Allow(1011));
  breaker.RecordSuccess();
  EXPECT_EQ(breaker.state(1012), CircuitBreaker::State::kClosed);
  EXPECT_TRUE(breaker.Allow(1012));
}

TEST(CircuitBreakerTest, FailedProbeReopens) {
  CircuitBreakerOptions options;
  options.failures_to_open = 1;
  options.open_for_us = 100;
  CircuitBreaker breaker(options);
  breaker.RecordFailure(0);
  EXPECT_FALSE(breaker.Allow(50));
  EXPECT_TRUE(breaker.Allow(100));
  breaker.RecordFailure(100);
  EXPECT_EQ(breaker.state(150), CircuitBreaker::State::kOpen);
  EXPECT_FALSE(breaker.Allow(150));
  EXPECT_TRUE(breaker.Allow(200));
}

// A decision that took the probe slot and ended without reporting must not hold the breaker
// half-open, with every later decision on the fallback path, for good.
TEST(CircuitBreakerTest, LostProbeIsReplacedAfterProbeLostAfter) {
  CircuitBreakerOptions options;
  options.failures_to_open = 1;
  options.open_for_us = 100;
  options.probes_to_close = 1;
  options.probe_lost_after_us = 1000;
  CircuitBreaker breaker(options);
  breaker.RecordFailure(0);
  EXPECT_TRUE(breaker.Allow(100));   // the probe, never reported
  EXPECT_FALSE(breaker.Allow(200));  // slow, not lost: never two probes at once
  EXPECT_FALSE(breaker.Allow(1099));
  EXPECT_TRUE(breaker.Allow(1100));  // presumed lost: a new probe
  EXPECT_FALSE(breaker.Allow(1101));
  breaker.RecordSuccess();
  EXPECT_EQ(breaker.state(1102), CircuitBreaker::State::kClosed);
}

}  // namespace
}  // namespace verdict
