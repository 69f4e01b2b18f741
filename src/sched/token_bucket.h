// TokenBucket: a per-tenant rate limit (rate per second, burst) kept as one atomic "theoretical
// arrival time" (GCRA, equivalent to a token bucket), so admission is one compare-and-swap and
// never a lock. Time is passed in (µs on any monotonic scale), so tests drive it by hand.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace verdict {

class TokenBucket {
 public:
  // `rate_per_s` <= 0: unlimited (TryTake always grants). `burst` >= 1 tokens may be taken at
  // once from a full bucket; below 1 it is treated as 1.
  TokenBucket(double rate_per_s, double burst);

  // Takes `tokens` (>= 1) at `now_us` and returns 0, or takes nothing and returns how many µs
  // until the request would be granted (at least 1). A request larger than the burst is
  // granted once the bucket is full, and the bucket goes into debt for the rest, so a batch
  // of any size can pass.
  int64_t TryTake(int64_t now_us, double tokens = 1);

  // µs until one token is available at `now_us` (0: available now). An estimate for
  // Retry-After; takes nothing.
  int64_t WaitUs(int64_t now_us) const;

  bool unlimited() const { return interval_ns_ <= 0; }
  double rate_per_s() const { return rate_per_s_; }
  double burst() const { return burst_; }

 private:
  const double rate_per_s_;
  const double burst_;
  const double interval_ns_;   // ns per token; 0 when unlimited
  const double tolerance_ns_;  // (burst - 1) * interval: how far ahead of now tat_ may run
  // Theoretical arrival time (ns): when the bucket is next empty of debt. Starts at the
  // minimum so a new bucket is full.
  std::atomic<int64_t> tat_ns_;
};

}  // namespace verdict
