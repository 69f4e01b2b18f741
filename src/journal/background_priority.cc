#include "journal/background_priority.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace verdict::journal {
namespace {

// raise_requested_ bits, one per Kind.
constexpr int kRaiseFlushes = 1;
constexpr int kRaiseCompactions = 2;

int RaiseBit(BackgroundPriority::Kind kind) {
  return kind == BackgroundPriority::Kind::kFlush ? kRaiseFlushes : kRaiseCompactions;
}

// An exception must not unwind into RocksDB's thread; a job that could not be registered keeps
// its thread at normal priority (BeginJob lowers only after registering).
template <typename Callback>
void WithoutThrowing(Callback callback) noexcept {
  try {
    callback();
  } catch (...) {
  }
}

bool SetSystemPolicy(pid_t tid, int policy) {
  // A tid names a thread system-wide: one that has exited (a stale entry) may have been reused
  // by another process's.
  if (tid != gettid() && syscall(SYS_tgkill, getpid(), tid, 0) != 0) return false;
  sched_param param{};
  param.sched_priority = 0;
  return sched_setscheduler(tid, policy, &param) == 0;
}

}  // namespace

BackgroundPriority::BackgroundPriority(int64_t idle_allowance_us, const Clock* clock,
                                       Counter* boosts, PolicySetter set_policy)
    : idle_allowance_ns_(idle_allowance_us * 1000),
      clock_(clock),
      boosts_(boosts),
      set_policy_(set_policy ? std::move(set_policy) : PolicySetter(SetSystemPolicy)) {}

BackgroundPriority::~BackgroundPriority() { Close(); }

bool BackgroundPriority::Supported() {
  bool ok = false;
  std::thread probe([&ok] {
    ok = SetSystemPolicy(gettid(), SCHED_IDLE) && SetSystemPolicy(gettid(), SCHED_OTHER);
  });
  probe.join();
  return ok;
}

void BackgroundPriority::BeginJob(pid_t tid, Kind kind) {
  began_.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<std::atomic<bool>> raised;
  {
    MutexLock lock(mu_);
    std::erase_if(jobs_, [tid](const Job& job) { return job.tid == tid; });
    const int64_t now = clock_->MonotonicNanos();
    if (!closing_ && now >= begin_normal_until_ns_) {
      raised = std::make_shared<std::atomic<bool>>(false);
      jobs_.push_back({tid, kind, now + idle_allowance_ns_, raised});
      UpdateNextBoostLocked();
    }
  }
  if (raised == nullptr) {
    // A busy core, or closing: normal priority, also if a job before it failed while lowered.
    set_policy_(tid, SCHED_OTHER);
    return;
  }
  wake_.SignalAll();  // the watchdog times the new job
  // Lowered only now, outside the lock: an idle thread holding it would hold up the watchdog.
  if (!set_policy_(tid, SCHED_IDLE)) return;
  if (raised->load()) set_policy_(tid, SCHED_OTHER);  // raised meanwhile: do not undo it
}

void BackgroundPriority::EndJob(pid_t tid) {
  set_policy_(tid, SCHED_OTHER);  // first, so that it takes the lock at normal priority
  MutexLock lock(mu_);
  std::erase_if(jobs_, [tid](const Job& job) { return job.tid == tid; });
  UpdateNextBoostLocked();
}

void BackgroundPriority::RequestRaise(bool flushes_only) {
  raise_requested_.fetch_or(flushes_only ? kRaiseFlushes : kRaiseFlushes | kRaiseCompactions);
  wake_.SignalAll();
}

int BackgroundPriority::Poll() {
  const int requested = raise_requested_.exchange(0);
  const int64_t now = clock_->MonotonicNanos();
  if (requested == 0 && now < next_boost_ns_.load(std::memory_order_relaxed)) return 0;
  MutexLock lock(mu_);
  return RaiseLocked([&](const Job& job) {
    return (requested & RaiseBit(job.kind)) != 0 || job.boost_at_ns <= now;
  });
}

int BackgroundPriority::RaiseLocked(const std::function<bool(const Job&)>& due) {
  int raised = 0;
  for (Job& job : jobs_) {
    if (job.raised->load() || !due(job)) continue;
    // Marked even if refused (the thread is gone), so that it is not retried on every pass.
    job.raised->store(true);
    if (set_policy_(job.tid, SCHED_OTHER)) ++raised;
  }
  if (raised > 0) {
    begin_normal_until_ns_ = clock_->MonotonicNanos() + kBusyWindowFactor * idle_allowance_ns_;
    boosted_.fetch_add(static_cast<uint64_t>(raised), std::memory_order_relaxed);
    if (boosts_ != nullptr) boosts_->Increment(static_cast<uint64_t>(raised));
  }
  UpdateNextBoostLocked();
  return raised;
}

void BackgroundPriority::UpdateNextBoostLocked() {
  int64_t next = std::numeric_limits<int64_t>::max();
  for (const Job& job : jobs_) {
    if (!job.raised->load()) next = std::min(next, job.boost_at_ns);
  }
  next_boost_ns_.store(next, std::memory_order_relaxed);
}

void BackgroundPriority::OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo&) {
  WithoutThrowing([this] { BeginJob(gettid(), Kind::kFlush); });
}
void BackgroundPriority::OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) {
  WithoutThrowing([this] { EndJob(gettid()); });
}
void BackgroundPriority::OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo&) {
  WithoutThrowing([this] { BeginJob(gettid(), Kind::kCompaction); });
}
void BackgroundPriority::OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) {
  WithoutThrowing([this] { EndJob(gettid()); });
}

void BackgroundPriority::OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) {
  if (info.condition.cur != rocksdb::WriteStallCondition::kNormal) RequestRaise(false);
}

void BackgroundPriority::StartWatchdog() {
  MutexLock lock(mu_);
  if (watchdog_.joinable() || closing_) return;
  watchdog_ = std::thread([this] { WatchdogLoop(); });
}

void BackgroundPriority::WatchdogLoop() {
  const auto tick =
      std::chrono::nanoseconds(std::clamp<int64_t>(idle_allowance_ns_ / 4, 1'000'000, 50'000'000));
  MutexLock lock(mu_);
  // RequestRaise notifies without the lock (RocksDB's writing thread must not wait for it): a
  // wake-up lost between the check and the wait costs at most one tick while a job runs, and
  // with no job there is nothing to raise.
  while (!closing_) {
    if (jobs_.empty()) {
      while (!closing_ && raise_requested_.load() == 0 && jobs_.empty()) wake_.Wait(mu_);
    } else {
      const auto deadline = std::chrono::steady_clock::now() + tick;
      while (!closing_ && raise_requested_.load() == 0) {
        if (!wake_.WaitUntil(mu_, deadline)) break;
      }
    }
    if (closing_) break;
    lock.Unlock();
    Poll();
    lock.Lock();
  }
}

void BackgroundPriority::Close() {
  {
    MutexLock lock(mu_);
    if (!closing_) {
      closing_ = true;
      RaiseLocked([](const Job&) { return true; });
    }
  }
  wake_.SignalAll();
  if (watchdog_.joinable() && watchdog_.get_id() != std::this_thread::get_id()) watchdog_.join();
}

}  // namespace verdict::journal
