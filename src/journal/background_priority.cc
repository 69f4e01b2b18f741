#include "journal/background_priority.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <thread>

namespace verdict::journal {
namespace {

// tid 0: the calling thread.
bool SetPolicy(pid_t tid, int policy) {
  sched_param param{};
  param.sched_priority = 0;
  return sched_setscheduler(tid, policy, &param) == 0;
}

}  // namespace

BackgroundPriority::BackgroundPriority(int64_t idle_allowance_us, const Clock* clock,
                                       Counter* boosts)
    : idle_allowance_ns_(idle_allowance_us * 1000),
      clock_(clock),
      boosts_(boosts),
      next_boost_ns_(std::numeric_limits<int64_t>::max()) {}

bool BackgroundPriority::Supported() {
  bool ok = false;
  std::thread probe([&ok] { ok = SetPolicy(0, SCHED_IDLE) && SetPolicy(0, SCHED_OTHER); });
  probe.join();
  return ok;
}

void BackgroundPriority::BeginJob() {
  const pid_t tid = gettid();
  std::lock_guard lock(mu_);
  std::erase_if(jobs_, [tid](const Job& job) { return job.tid == tid; });
  began_.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = clock_->MonotonicNanos();
  if (now < begin_normal_until_ns_) return;
  if (!SetPolicy(0, SCHED_IDLE)) return;  // runs at its normal priority: nothing to raise
  jobs_.push_back({tid, now + idle_allowance_ns_, false});
  UpdateNextBoost();
}

void BackgroundPriority::EndJob() {
  const pid_t tid = gettid();
  std::lock_guard lock(mu_);
  const size_t erased = std::erase_if(jobs_, [tid](const Job& job) { return job.tid == tid; });
  if (erased > 0) SetPolicy(0, SCHED_OTHER);
  UpdateNextBoost();
}

int BackgroundPriority::BoostOverdue() {
  const int64_t now = clock_->MonotonicNanos();
  if (now < next_boost_ns_.load(std::memory_order_relaxed)) return 0;
  std::lock_guard lock(mu_);
  return BoostDue(now);
}

int BackgroundPriority::BoostAll() {
  std::lock_guard lock(mu_);
  return BoostDue(std::numeric_limits<int64_t>::max());
}

int BackgroundPriority::BoostDue(int64_t now) {
  int raised = 0;
  for (Job& job : jobs_) {
    if (job.boosted || job.boost_at_ns > now) continue;
    // Marked even if refused, so that a refusal is not retried on every write.
    job.boosted = true;
    if (SetPolicy(job.tid, SCHED_OTHER)) ++raised;
  }
  if (raised > 0) {
    begin_normal_until_ns_ = clock_->MonotonicNanos() + kBusyWindowFactor * idle_allowance_ns_;
    boosted_.fetch_add(static_cast<uint64_t>(raised), std::memory_order_relaxed);
    if (boosts_ != nullptr) boosts_->Increment(static_cast<uint64_t>(raised));
  }
  UpdateNextBoost();
  return raised;
}

void BackgroundPriority::UpdateNextBoost() {
  int64_t next = std::numeric_limits<int64_t>::max();
  for (const Job& job : jobs_) {
    if (!job.boosted) next = std::min(next, job.boost_at_ns);
  }
  next_boost_ns_.store(next, std::memory_order_relaxed);
}

}  // namespace verdict::journal
