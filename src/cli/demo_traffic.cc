#include "cli/demo_traffic.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "common/clock.h"
#include "sim/simulator.h"

namespace verdict {
namespace {

// The warm-up goes at least this fast (transactions per second), and at least this many times
// the live rate.
constexpr double kWarmUpRate = 200;
constexpr double kWarmUpSpeedUp = 100;
constexpr int64_t kWarmUpMicros = int64_t{7} * 24 * 3600 * 1'000'000;

// The population the bundled demo model was trained on (scripts/demo-model: `verdict sim
// --accounts 10000 --days 30`, the simulator's share of laundering patterns), with another
// seed: the traffic is new, its distributions are the model's own, so the drift watch sees
// none. A population of other sizes or pattern shares is drift, and the watch says so.
SimOptions DemoOptions(uint64_t seed) {
  SimOptions options;
  options.accounts = 10'000;
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
    MutexLock lock(mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

bool DemoTraffic::StoppedBefore(std::chrono::steady_clock::time_point until) {
  MutexLock lock(mu_);
  while (!stopping_ && cv_.WaitUntil(mu_, until)) {
  }
  return stopping_;
}

void DemoTraffic::Loop() {
  const Clock& clock = SystemClock::Instance();
  const auto interval = std::chrono::duration<double>(1.0 / rate_);
  // The simulator's first week is the accounts' history (its laundering patterns start later):
  // it goes through quickly, as bulk, so that accounts have history (and the drift watch
  // decisions to judge) within minutes rather than after a simulated week.
  const auto warm_up_interval =
      std::chrono::duration<double>(1.0 / std::max(kWarmUpRate, kWarmUpSpeedUp * rate_));
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
    std::optional<int64_t> first_us;
    Status s = (*sim)->Run([&](const LabelledTransaction& row) -> Status {
      if (!first_us) first_us = row.txn.timestamp_us;
      const bool warm_up = row.txn.timestamp_us - *first_us < kWarmUpMicros;
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          warm_up ? warm_up_interval : interval);
      if (StoppedBefore(next)) return Unavailable("demo traffic stopping");
      Transaction txn = row.txn;
      txn.transaction_id = prefix + std::to_string(++number);
      if (warm_up) txn.priority = Priority::kBulk;
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
