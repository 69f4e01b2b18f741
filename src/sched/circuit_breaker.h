// CircuitBreaker around the model stage: consecutive failures or overruns open it (every
// decision takes the fallback path), after open_for_us it lets probes through (half-open),
// and consecutive good probes close it. A probe whose outcome never comes (its decision ended
// between Allow and the report) is presumed lost after probe_lost_after_us, so that it cannot
// hold the breaker half-open with every decision on the fallback path for good.
// Thread-safe (one mutex; a handful of ns per call).
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>

#include "sched/scheduler_options.h"

namespace verdict {

class CircuitBreaker {
 public:
  enum class State { kClosed, kOpen, kHalfOpen };

  explicit CircuitBreaker(const CircuitBreakerOptions& options) : options_(options) {}

  // May this decision use the model? In half-open state, one probe at a time.
  bool Allow(int64_t now_us);
  // The outcome of a decision that Allow let through.
  void RecordSuccess();
  void RecordFailure(int64_t now_us);

  State state(int64_t now_us) const;
  static std::string_view StateName(State state);

 private:
  const CircuitBreakerOptions options_;
  mutable std::mutex mu_;
  State state_ = State::kClosed;
  int consecutive_failures_ = 0;
  int good_probes_ = 0;
  bool probe_in_flight_ = false;
  int64_t probe_started_us_ = 0;
  int64_t opened_at_us_ = 0;
};

}  // namespace verdict
