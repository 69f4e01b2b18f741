#include "sched/circuit_breaker.h"

namespace verdict {

bool CircuitBreaker::Allow(int64_t now_us) {
  std::lock_guard lock(mu_);
  if (state_ == State::kOpen && now_us - opened_at_us_ >= options_.open_for_us) {
    state_ = State::kHalfOpen;
    good_probes_ = 0;
    probe_in_flight_ = false;
  }
  switch (state_) {
    case State::kClosed:
      return true;
    case State::kOpen:
      return false;
    case State::kHalfOpen:
      if (probe_in_flight_ && now_us - probe_started_us_ < options_.probe_lost_after_us) {
        return false;
      }
      probe_in_flight_ = true;
      probe_started_us_ = now_us;
      return true;
  }
  return false;
}

void CircuitBreaker::RecordSuccess() {
  std::lock_guard lock(mu_);
  consecutive_failures_ = 0;
  if (state_ == State::kHalfOpen) {
    probe_in_flight_ = false;
    if (++good_probes_ >= options_.probes_to_close) state_ = State::kClosed;
  }
}

void CircuitBreaker::RecordFailure(int64_t now_us) {
  std::lock_guard lock(mu_);
  if (state_ == State::kHalfOpen || ++consecutive_failures_ >= options_.failures_to_open) {
    state_ = State::kOpen;
    opened_at_us_ = now_us;
    consecutive_failures_ = 0;
    probe_in_flight_ = false;
  }
}

CircuitBreaker::State CircuitBreaker::state(int64_t now_us) const {
  std::lock_guard lock(mu_);
  if (state_ == State::kOpen && now_us - opened_at_us_ >= options_.open_for_us) {
    return State::kHalfOpen;
  }
  return state_;
}

std::string_view CircuitBreaker::StateName(State state) {
  switch (state) {
    case State::kClosed:
      return "closed";
    case State::kOpen:
      return "open";
    case State::kHalfOpen:
      return "half_open";
  }
  return "closed";
}

}  // namespace verdict
