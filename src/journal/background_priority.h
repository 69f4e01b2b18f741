// BackgroundPriority: runs the store's flushes and compactions at SCHED_IDLE, so that they use
// only CPU time the decision path leaves over, and raises a job to normal priority once it has
// run for `idle_allowance_us`, a flush as soon as another memtable is sealed (the one flush
// thread then has a queue) and every job when RocksDB delays or stops writes. After a raise,
// jobs begin at normal priority for kBusyWindowFactor allowances: a core that starved one job
// is busy, and idle starts would cost each next job its allowance too.
//
// Why: the engine may run on one core (a small deployment), and a memtable flush is a burst of
// CPU (figures in docs/PERFORMANCE.md); at normal priority it takes its share of the core from
// the I/O thread and the journal's writer, and every answer in flight waits longer.
//
// A RocksDB EventListener. A job's thread lowers itself in OnFlushBegin/OnCompactionBegin,
// after registering, and raises itself first thing in the *Completed callback, so it never holds
// this object's mutex while idle. Raises are made by a watchdog thread of our own at normal
// priority (StartWatchdog), never by RocksDB's writing thread, which must not wait behind an
// idle thread. RocksDB's pools belong to the process's Env and outlive the DB, and skip the
// callbacks once the DB is closing: Close (before the DB closes) raises every job and lowers no
// more. Thread-safe. Leaving SCHED_IDLE needs CAP_SYS_NICE or RLIMIT_NICE >= 20 (Linux): use
// Supported() first, or jobs could be lowered and never raised again.
#pragma once

#include <rocksdb/listener.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"

namespace verdict::journal {

class BackgroundPriority final : public rocksdb::EventListener {
 public:
  static constexpr int64_t kBusyWindowFactor = 10;
  // Sets thread `tid`'s scheduling policy (SCHED_IDLE or SCHED_OTHER); false if refused or the
  // thread is gone. Injected by tests.
  using PolicySetter = std::function<bool(pid_t tid, int policy)>;
  enum class Kind { kFlush, kCompaction };

  // `boosts` (may be null) counts the jobs raised, beside boosted(). `set_policy` null: the
  // system's (sched_setscheduler, for threads of this process only).
  BackgroundPriority(int64_t idle_allowance_us, const Clock* clock, Counter* boosts = nullptr,
                     PolicySetter set_policy = nullptr);
  ~BackgroundPriority() override;
  BackgroundPriority(const BackgroundPriority&) = delete;
  BackgroundPriority& operator=(const BackgroundPriority&) = delete;

  // True when this process may move a thread out of SCHED_IDLE again (probed on a thread of its
  // own, once per call).
  static bool Supported();

  // Runs Poll every quarter allowance (at most every 50 ms) while a job is registered, and at
  // once when a raise is requested. Without it, Poll must be called (tests).
  void StartWatchdog() EXCLUDES(mu_);
  // Raises the requested jobs (RequestRaise) and those past their allowance. Returns how many.
  int Poll() EXCLUDES(mu_);
  // Raises every job and lowers no more; stops the watchdog. Idempotent; before the DB closes.
  void Close() EXCLUDES(mu_);

  // Asks the next Poll (the watchdog's, at once) to raise every registered flush, or every job.
  // Takes no lock: RocksDB's writing thread calls it.
  void RequestRaise(bool flushes_only);

  uint64_t boosted() const { return boosted_.load(std::memory_order_relaxed); }
  uint64_t began() const { return began_.load(std::memory_order_relaxed); }

  // The calling thread, `tid`, begins or ends a job. Public for tests.
  void BeginJob(pid_t tid, Kind kind) EXCLUDES(mu_);
  void EndJob(pid_t tid) EXCLUDES(mu_);

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo&) override;
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override;
  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override;
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override;
  void OnMemTableSealed(const rocksdb::MemTableInfo&) override { RequestRaise(true); }
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override;

 private:
  struct Job {
    pid_t tid = 0;
    Kind kind = Kind::kFlush;
    int64_t boost_at_ns = 0;
    // Set before the raise; read by the job's thread after it lowered itself, so that a raise
    // that came first is not undone.
    std::shared_ptr<std::atomic<bool>> raised;
  };
  // Raises the jobs not yet raised that `due` selects.
  int RaiseLocked(const std::function<bool(const Job&)>& due) REQUIRES(mu_);
  void UpdateNextBoostLocked() REQUIRES(mu_);
  void WatchdogLoop() EXCLUDES(mu_);

  const int64_t idle_allowance_ns_;
  const Clock* const clock_;
  Counter* const boosts_;
  const PolicySetter set_policy_;

  Mutex mu_;
  CondVar wake_;
  // Keyed by thread: a job that failed without its Completed callback is replaced by the next
  // job on that thread.
  std::vector<Job> jobs_ GUARDED_BY(mu_);
  int64_t begin_normal_until_ns_ GUARDED_BY(mu_) = std::numeric_limits<int64_t>::min();
  bool closing_ GUARDED_BY(mu_) = false;
  // Started under mu_ while not closing_; joined by Close once closing_ is set (no start after).
  std::thread watchdog_;

  // One bit per Kind whose jobs are to be raised: set by RocksDB's threads without taking mu_.
  std::atomic<int> raise_requested_{0};
  std::atomic<int64_t> next_boost_ns_{std::numeric_limits<int64_t>::max()};
  std::atomic<uint64_t> boosted_{0};
  std::atomic<uint64_t> began_{0};
};

}  // namespace verdict::journal
