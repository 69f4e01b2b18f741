#include "common/clock.h"

#include <chrono>

namespace verdict {

int64_t SystemClock::NowMicros() const {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t SystemClock::MonotonicNanos() const {
  using namespace std::chrono;
  return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

const SystemClock& SystemClock::Instance() {
  static const SystemClock* const kInstance = new SystemClock();
  return *kInstance;
}

}  // namespace verdict
