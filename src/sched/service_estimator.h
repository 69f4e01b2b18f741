// ServiceTimeEstimator: exponentially weighted averages of how long one decision takes on the
// full path and on the fallback path, from which the scheduler predicts whether a request can
// still meet its deadline. Thread-safe (relaxed atomics: an estimate, not an invariant).
#pragma once

#include <atomic>
#include <cstdint>

namespace verdict {

class ServiceTimeEstimator {
 public:
  ServiceTimeEstimator(double alpha, int64_t initial_full_us, int64_t initial_fallback_us)
      : alpha_(alpha), full_us_(initial_full_us), fallback_us_(initial_fallback_us) {}

  void RecordFull(int64_t micros) { Update(full_us_, micros); }
  void RecordFallback(int64_t micros) { Update(fallback_us_, micros); }
  double full_us() const { return full_us_.load(std::memory_order_relaxed); }
  double fallback_us() const { return fallback_us_.load(std::memory_order_relaxed); }

  // Whether a request started now would still finish the full path by its deadline.
  bool FullPathFits(int64_t now_us, int64_t deadline_us) const {
    return static_cast<double>(now_us) + full_us() <= static_cast<double>(deadline_us);
  }

 private:
  void Update(std::atomic<double>& average, int64_t sample) {
    double old = average.load(std::memory_order_relaxed);
    average.store(old + alpha_ * (static_cast<double>(sample) - old), std::memory_order_relaxed);
  }

  const double alpha_;
  std::atomic<double> full_us_;
  std::atomic<double> fallback_us_;
};

}  // namespace verdict
