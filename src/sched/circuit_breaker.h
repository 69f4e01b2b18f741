// CircuitBreaker around the model stage: consecutive failures or overruns open it (every
// decision takes the fallback path), after open_for_us it lets probes through (half-open),
// and consecutive good probes close it. A probe whose outcome never comes (its decision ended
// between Allow and the report) is presumed lost after probe_lost_after_us, so that it cannot
// hold the breaker half-open with every decision on the fallback path for good.
// Thread-safe (one mutex; a handful of ns per call).
#pragma once

#include <cstdint>
#include <string_view>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "sched/scheduler_options.h"

namespace verdict {

class CircuitBreaker {
 public:
  enum class State { kClosed, kOpen, kHalfOpen };

  explicit CircuitBreaker(const CircuitBreakerOptions& options) : options_(options) {}

  // May this decision use the model? In half-open state, one probe at a time.
  bool Allow(int64_t now_us) EXCLUDES(mu_);
  // The outcome of a decision that Allow let through.
  void RecordSuccess() EXCLUDES(mu_);
  void RecordFailure(int64_t now_us) EXCLUDES(mu_);

  State state(int64_t now_us) const EXCLUDES(mu_);
  static std::string_view StateName(State state);

 private:
  const CircuitBreakerOptions options_;
  // Debug builds: asserts what holds between calls (a probe is only in flight half-open; the
  // counters stay below the thresholds that move the state on).
  void CheckInvariants() const REQUIRES(mu_);

  mutable Mutex mu_;
  State state_ GUARDED_BY(mu_) = State::kClosed;
  int consecutive_failures_ GUARDED_BY(mu_) = 0;
  int good_probes_ GUARDED_BY(mu_) = 0;
  bool probe_in_flight_ GUARDED_BY(mu_) = false;
  int64_t probe_started_us_ GUARDED_BY(mu_) = 0;
  int64_t opened_at_us_ GUARDED_BY(mu_) = 0;
};

}  // namespace verdict
