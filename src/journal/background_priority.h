// BackgroundPriority: runs the store's flushes and compactions at SCHED_IDLE, so that they use
// only CPU time the decision path leaves over, and raises a job to normal priority once it has
// run for `idle_allowance_us` without finishing, or as soon as another memtable is sealed while
// it runs (the one flush thread then has a queue, which a starved job would let grow into a
// write stall). After a raise, jobs begin at normal priority for a while (kBusyWindowFactor
// allowances): a core that starved one job is busy, and idle starts would cost each next job its
// allowance too.
//
// Why: the engine runs on one core (issue 7's set-up, and a small deployment's), and a memtable
// flush is ~0.1–0.3 s of CPU at once; at normal priority it takes its share of the core from
// the I/O thread and the journal's writer, and every answer in flight waits longer
// (docs/PERFORMANCE.md, issue 7, session 22).
//
// A RocksDB EventListener: OnFlushBegin/OnCompactionBegin run on the job's own thread, which
// lowers itself and registers; the *Completed callbacks restore it. BoostOverdue, called by the
// store on every write, raises the jobs past their allowance (one relaxed atomic load unless a
// job is due); OnMemTableSealed (on the writing thread) raises every job at once. Thread-safe.
// Leaving SCHED_IDLE needs CAP_SYS_NICE or RLIMIT_NICE >= 20 (Linux): use Supported() first, or
// jobs could be lowered and never raised again.
#pragma once

#include <rocksdb/listener.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"

namespace verdict::journal {

class BackgroundPriority final : public rocksdb::EventListener {
 public:
  static constexpr int64_t kBusyWindowFactor = 10;

  // `boosts` (may be null) counts the jobs raised, beside boosted().
  BackgroundPriority(int64_t idle_allowance_us, const Clock* clock, Counter* boosts = nullptr);

  // True when this process may move a thread out of SCHED_IDLE again (probed on a thread of
  // its own, once per call).
  static bool Supported();

  // Raises every registered job that has been idle-scheduled for its whole allowance. Returns
  // how many it raised. Cheap when none is due.
  int BoostOverdue();
  // Raises every registered job now. Returns how many it raised.
  int BoostAll();

  // Jobs raised to normal priority since construction.
  uint64_t boosted() const { return boosted_.load(std::memory_order_relaxed); }
  // Jobs that began under this listener since construction.
  uint64_t began() const { return began_.load(std::memory_order_relaxed); }

  // The calling thread is a job's: lower it and register it. Public for tests.
  void BeginJob();
  // The calling thread's job ended: restore it and forget it. Public for tests.
  void EndJob();

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { BeginJob(); }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { EndJob(); }
  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override { BeginJob(); }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override { EndJob(); }
  void OnMemTableSealed(const rocksdb::MemTableInfo&) override { BoostAll(); }

 private:
  struct Job {
    pid_t tid = 0;
    int64_t boost_at_ns = 0;
    bool boosted = false;
  };
  // Raises the jobs not yet raised whose boost_at_ns is at most `now`; mu_ held.
  int BoostDue(int64_t now);
  // Recomputes next_boost_ns_ from jobs_; mu_ held.
  void UpdateNextBoost();

  const int64_t idle_allowance_ns_;
  const Clock* const clock_;
  Counter* const boosts_;
  std::mutex mu_;
  // Keyed by thread: a job that failed without its Completed callback is replaced by the next
  // job on that thread (RocksDB's pools keep their threads for the DB's lifetime).
  std::vector<Job> jobs_;
  // Jobs that begin before this run at normal priority throughout (set by each raise).
  int64_t begin_normal_until_ns_ = std::numeric_limits<int64_t>::min();
  // The earliest boost_at_ns of a job not yet raised; INT64_MAX when none.
  std::atomic<int64_t> next_boost_ns_;
  std::atomic<uint64_t> boosted_{0};
  std::atomic<uint64_t> began_{0};
};

}  // namespace verdict::journal
