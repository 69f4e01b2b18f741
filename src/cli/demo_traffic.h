// DemoTraffic: `verdict serve --demo-traffic RATE` feeds simulated transactions (src/sim, with
// its laundering patterns) through the engine at a gentle rate, so that a newcomer opening the
// console after `make run` sees a live queue. Owns one thread; Stop (or the destructor) joins it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "common/mutex.h"
#include "common/thread_annotations.h"
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

  void Stop() EXCLUDES(mu_);
  uint64_t submitted() const { return submitted_.load(std::memory_order_relaxed); }

 private:
  void Loop() EXCLUDES(mu_);
  // Waits until `until`; true when Stop was called first (or meanwhile).
  bool StoppedBefore(std::chrono::steady_clock::time_point until) EXCLUDES(mu_);

  Engine& engine_;
  const double rate_;
  const Caller caller_;
  std::atomic<uint64_t> submitted_{0};
  Mutex mu_;
  CondVar cv_;  // stopping
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace verdict
