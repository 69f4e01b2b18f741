#include "cli/demo_traffic.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <string>
#include <utility>

#include "common/clock.h"
#include "sim/simulator.h"

namespace verdict {
namespace {

// A small population whose patterns (structuring, fan-in, pass-through...) come round often
// enough to open cases within minutes at a few transactions per second.
SimOptions DemoOptions(uint64_t seed) {
  SimOptions options;
  options.accounts = 1500;
  options.days = 30;
  options.seed = seed;
  return options;
}

}  // namespace

DemoTraffic::DemoTraffic(Engine& engine, double rate, Caller caller)
    : engine_(engine), rate_(rate), caller_(std::move(caller)) {
  thread_ = std::thread([this] { Loop(); });
}

void DemoTraffic::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DemoTraffic::Loop() {
  const Clock& clock = SystemClock::Instance();
  const auto interval = std::chrono::duration<double>(1.0 / rate_);
  // Transaction ids unique to this process and run, so a restart never replays (or conflicts
  // with) an earlier run's ids.
  const std::string prefix = "demo-" + std::to_string(clock.NowMicros() / 1'000'000) + "-";
  uint64_t number = 0;
  auto next = std::chrono::steady_clock::now();
  for (uint64_t run = 0;; ++run) {
    auto sim = Simulator::Create(DemoOptions(static_cast<uint64_t>(clock.NowMicros()) + run));
    if (!sim.ok()) {
      spdlog::error("demo traffic: {}", sim.status().message());
      return;
    }
    Status s = (*sim)->Run([&](const LabelledTransaction& row) -> Status {
      {
        std::unique_lock lock(mu_);
        next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval);
        if (cv_.wait_until(lock, next, [this] { return stopping_; })) {
          return Unavailable("demo traffic stopping");
        }
      }
      Transaction txn = row.txn;
      txn.transaction_id = prefix + std::to_string(++number);
      Status admitted =
          engine_.Submit(std::move(txn), caller_, clock.MonotonicNanos(), [](Result<Decision>) {});
      // Refused (overload, stopping): demo traffic is best effort; the next one may pass.
      if (admitted.ok()) submitted_.fetch_add(1, std::memory_order_relaxed);
      return Status::Ok();
    });
    if (!s.ok()) return;  // stopping
  }
}

}  // namespace verdict
