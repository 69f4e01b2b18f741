// CaseFeed: the hand-off from the journal's commit callbacks to the case store: the sequence
// numbers of durable decisions that open a case, in commit order. Shared (shared_ptr) by the
// engine's commit callbacks and the CaseStore, so a callback that runs after the store has
// gone (during the journal's final flush) pushes into a closed feed harmlessly; the store's
// start-up catch-up covers whatever a closed feed dropped. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict::cases {

class CaseFeed {
 public:
  // Never blocks; ignored once closed.
  void Push(uint64_t seq) EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      if (closed_) return;
      seqs_.push_back(seq);
    }
    cv_.Signal();
  }
  // Waits for sequence numbers and moves them all into `out`; false once closed.
  bool Take(std::vector<uint64_t>* out) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (!closed_ && seqs_.empty()) cv_.Wait(mu_);
    if (closed_) return false;
    out->assign(seqs_.begin(), seqs_.end());
    seqs_.clear();
    return true;
  }
  void Close() EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      closed_ = true;
    }
    cv_.SignalAll();
  }

 private:
  Mutex mu_;
  CondVar cv_;  // a sequence number pushed, or closed
  std::deque<uint64_t> seqs_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
};

}  // namespace verdict::cases
