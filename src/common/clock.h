// Clock: the injected source of time; all timestamps are UTC microseconds since the Unix
// epoch. SystemClock is stateless; ManualClock is thread-safe (atomic) and moves only when told.
#pragma once

#include <atomic>
#include <cstdint>

namespace verdict {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, UTC microseconds since 1970-01-01T00:00:00Z.
  virtual int64_t NowMicros() const = 0;
  // Monotonic time in nanoseconds for measuring durations; unrelated to the wall clock.
  virtual int64_t MonotonicNanos() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t NowMicros() const override;
  int64_t MonotonicNanos() const override;
  // A process-wide instance; never destroyed.
  static const SystemClock& Instance();
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t now_micros = 0) : now_micros_(now_micros) {}
  int64_t NowMicros() const override { return now_micros_.load(std::memory_order_relaxed); }
  int64_t MonotonicNanos() const override { return NowMicros() * 1000; }
  void SetMicros(int64_t now_micros) { now_micros_.store(now_micros, std::memory_order_relaxed); }
  void AdvanceMicros(int64_t delta) { now_micros_.fetch_add(delta, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_micros_;
};

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerHour = 3600 * kMicrosPerSecond;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

}  // namespace verdict
