#include "cli/demo_traffic.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "common/clock.h"
#include "journal/journal.h"
#include "sim/simulator.h"

namespace verdict {
namespace {

// The warm-up goes at least this fast (transactions per second), and at least this many times
// the live rate.
constexpr double kWarmUpRate = 200;
constexpr double kWarmUpSpeedUp = 100;
constexpr int64_t kWarmUpMicros = 7 * kMicrosPerDay;
constexpr std::string_view kDemoIdPrefix = "demo-";

}  // namespace

Result<std::optional<int64_t>> DemoResumeTime(const journal::Journal& journal,
                                              std::string_view tenant, uint64_t max_records) {
  const uint64_t last = journal.durable_sequence();
  const uint64_t first = last > max_records ? last - max_records + 1 : 1;
  for (uint64_t seq = last; seq >= first && seq > 0; --seq) {
    VERDICT_ASSIGN_OR_RETURN(std::optional<journal::JournalRecord> record, journal.ReadRecord(seq));
    if (!record || record->tenant != tenant) continue;
    const bool history = record->kind == journal::RecordKind::kHistory;
    const bool demo = record->kind == journal::RecordKind::kDecision &&
                      record->decision.transaction_id.starts_with(kDemoIdPrefix);
    if (history || demo) return std::optional<int64_t>(record->timestamp_us);
  }
  return std::optional<int64_t>();
}

DemoTraffic::DemoTraffic(Engine& engine, double rate, Caller caller,
                         std::optional<int64_t> resume_after_us)
    : engine_(engine), rate_(rate), caller_(std::move(caller)), resume_after_us_(resume_after_us) {
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

// The population's month, again and again: period k is the simulation shifted by k months, its
// transaction ids "demo-k-<simulated id>", so that the accounts keep their own behaviour (the
// one their imported history shows) and a restart continues after the journal's newest demo
// transaction without deciding one twice.
void DemoTraffic::Loop() {
  const Clock& clock = SystemClock::Instance();
  const SimOptions population = DemoPopulation();
  const int64_t period_us = int64_t{population.days} * kMicrosPerDay;
  const auto interval = std::chrono::duration<double>(1.0 / rate_);
  // Without history the simulator's first week is the accounts' history (its laundering
  // patterns start later): it goes through quickly, as bulk, so that accounts have history
  // (and the drift watch decisions to judge) within minutes rather than after a simulated week.
  const auto warm_up_interval =
      std::chrono::duration<double>(1.0 / std::max(kWarmUpRate, kWarmUpSpeedUp * rate_));
  const int64_t warm_up_end_us = resume_after_us_ ? 0 : population.start_us + kWarmUpMicros;
  const int64_t resume_after_us = resume_after_us_.value_or(population.start_us - 1);
  auto sim = Simulator::Create(population);
  if (!sim.ok()) {
    spdlog::error("demo traffic: {}", sim.status().message());
    return;
  }
  auto next = std::chrono::steady_clock::now();
  for (int64_t period = 0;; ++period) {
    const int64_t shift_us = period * period_us;
    if (population.start_us + shift_us + period_us <= resume_after_us) {
      continue;  // wholly before the journal's newest demo transaction
    }
    Status s = (*sim)->Run([&](const LabelledTransaction& row) -> Status {
      const int64_t timestamp_us = row.txn.timestamp_us + shift_us;
      if (timestamp_us <= resume_after_us) return Status::Ok();
      const bool warm_up = timestamp_us < warm_up_end_us;
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          warm_up ? warm_up_interval : interval);
      if (StoppedBefore(next)) return Unavailable("demo traffic stopping");
      Transaction txn = row.txn;
      txn.timestamp_us = timestamp_us;
      txn.transaction_id =
          std::string(kDemoIdPrefix) + std::to_string(period) + "-" + row.txn.transaction_id;
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
