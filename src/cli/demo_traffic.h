// DemoTraffic: `verdict serve --demo-traffic RATE` feeds simulated transactions (src/sim, with
// its laundering patterns) through the engine at a gentle rate, so that a newcomer opening the
// console after `make run` sees a live queue. The traffic is one fixed simulated population
// (sim/demo_population.h), the one whose first month `make run` imports as history: it continues
// that history where the engine's journal ends, repeating the population's month shifted in time.
// Owns one thread; Stop (or the destructor) joins it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <thread>

#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "engine/engine.h"
#include "sim/demo_population.h"

namespace verdict {

// Where the demo traffic of `tenant` continues: the event time of the newest history record or
// demo decision (transaction id "demo-…") of the tenant in the journal, looking back over at most
// `max_records` records; nullopt when there is none. Other decisions (a request by hand, dated
// today) do not move it: the population's calendar is its own.
Result<std::optional<int64_t>> DemoResumeTime(const journal::Journal& journal,
                                              std::string_view tenant,
                                              uint64_t max_records = 1'000'000);

class DemoTraffic {
 public:
  // `rate`: transactions per second, > 0, decided for `caller`'s tenant. `resume_after_us`: the
  // DemoResumeTime of the tenant; the traffic starts
  // with the population's first transaction after it. Without one it starts at the
  // population's beginning, whose first week (the accounts' history) goes through quickly as
  // bulk. The engine must outlive the DemoTraffic.
  DemoTraffic(Engine& engine, double rate, Caller caller, std::optional<int64_t> resume_after_us);
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
  const std::optional<int64_t> resume_after_us_;
  std::atomic<uint64_t> submitted_{0};
  Mutex mu_;
  CondVar cv_;  // stopping
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace verdict
