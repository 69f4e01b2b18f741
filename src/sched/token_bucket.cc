#include "sched/token_bucket.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace verdict {
namespace {

// µs, rounded up, at least 1: a wait of 0.2 µs is still a wait.
int64_t CeilMicros(double ns) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(ns / 1000)));
}

}  // namespace

TokenBucket::TokenBucket(double rate_per_s, double burst)
    : rate_per_s_(rate_per_s > 0 ? rate_per_s : 0),
      burst_(std::max(1.0, burst)),
      interval_ns_(rate_per_s > 0 ? 1e9 / rate_per_s : 0),
      tolerance_ns_((std::max(1.0, burst) - 1) * (rate_per_s > 0 ? 1e9 / rate_per_s : 0)),
      tat_ns_(std::numeric_limits<int64_t>::min() / 2) {
  assert(burst_ >= 1 && interval_ns_ >= 0 && tolerance_ns_ >= 0);
}

int64_t TokenBucket::TryTake(int64_t now_us, double tokens) {
  if (unlimited()) return 0;
  tokens = std::max(1.0, tokens);
  const int64_t now_ns = now_us * 1000;
  // Must find at least min(tokens, burst) tokens in the bucket; pays for all of them.
  const double need_ns = (std::min(tokens, burst_) - 1) * interval_ns_;
  const auto cost_ns = static_cast<int64_t>(tokens * interval_ns_);
  int64_t tat = tat_ns_.load(std::memory_order_relaxed);
  while (true) {
    const int64_t start = std::max(tat, now_ns);
    const double ahead = static_cast<double>(start - now_ns) + need_ns;
    if (ahead > tolerance_ns_) return CeilMicros(ahead - tolerance_ns_);
    if (tat_ns_.compare_exchange_weak(tat, start + cost_ns, std::memory_order_relaxed)) {
      // A grant leaves the bucket at most a burst plus this request in debt.
      assert(static_cast<double>(start + cost_ns - now_ns) <= tolerance_ns_ + cost_ns + 1);
      return 0;
    }
  }
}

int64_t TokenBucket::WaitUs(int64_t now_us) const {
  if (unlimited()) return 0;
  const int64_t now_ns = now_us * 1000;
  const double ahead =
      static_cast<double>(std::max(tat_ns_.load(std::memory_order_relaxed), now_ns) - now_ns);
  return ahead > tolerance_ns_ ? CeilMicros(ahead - tolerance_ns_) : 0;
}

}  // namespace verdict
