// DemoTraffic: `verdict serve --demo-traffic RATE` feeds simulated transactions (src/sim, with
// its laundering patterns) through the engine at a gentle rate, so that a newcomer opening the
// console after `make run` sees a live queue. Owns one thread; Stop (or the destructor) joins it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "engine/engine.h"

namespace verdict {

class DemoTraffic {
 public:
  // `rate`: transactions per second, > 0, decided for `caller`'s tenant. The engine must
  // outlive the DemoTraffic.
  DemoTraffic(Engine& engine, double rate, Caller caller);
  ~DemoTraffic() { Stop(); }
  DemoTraffic(const DemoTraffic&) = delete;
  DemoTraffic& operator=(const DemoTraffic&) = delete;

  void Stop();
  uint64_t submitted() const { return submitted_.load(std::memory_order_relaxed); }

 private:
  void Loop();

  Engine& engine_;
  const double rate_;
  const Caller caller_;
  std::atomic<uint64_t> submitted_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace verdict
