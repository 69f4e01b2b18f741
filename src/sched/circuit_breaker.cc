#include "sched/circuit_breaker.h"

#include <cassert>

namespace verdict {

bool CircuitBreaker::Allow(int64_t now_us) {
  MutexLock lock(mu_);
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
      CheckInvariants();
      return true;
  }
  return false;
}

void CircuitBreaker::RecordSuccess() {
  MutexLock lock(mu_);
  consecutive_failures_ = 0;
  if (state_ == State::kHalfOpen) {
    probe_in_flight_ = false;
    if (++good_probes_ >= options_.probes_to_close) state_ = State::kClosed;
  }
  CheckInvariants();
}

void CircuitBreaker::RecordFailure(int64_t now_us) {
  MutexLock lock(mu_);
  if (state_ == State::kHalfOpen || ++consecutive_failures_ >= options_.failures_to_open) {
    state_ = State::kOpen;
    opened_at_us_ = now_us;
    consecutive_failures_ = 0;
    probe_in_flight_ = false;
  }
  CheckInvariants();
}

void CircuitBreaker::CheckInvariants() const {
  assert(!probe_in_flight_ || state_ == State::kHalfOpen);
  assert(consecutive_failures_ >= 0 && good_probes_ >= 0);
  // Closed: the failures so far have not reached the threshold (reaching it opens).
  assert(state_ != State::kClosed || consecutive_failures_ < options_.failures_to_open ||
         options_.failures_to_open <= 0);
  // Half-open: the good probes so far have not reached the threshold (reaching it closes).
  assert(state_ != State::kHalfOpen || good_probes_ < options_.probes_to_close);
}

CircuitBreaker::State CircuitBreaker::state(int64_t now_us) const {
  MutexLock lock(mu_);
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
