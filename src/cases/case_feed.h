// CaseFeed: the hand-off from the journal's commit callbacks to the case store: the sequence
// numbers of durable decisions that open a case, in commit order. Shared (shared_ptr) by the
// engine's commit callbacks and the CaseStore, so a callback that runs after the store has
// gone (during the journal's final flush) pushes into a closed feed harmlessly; the store's
// start-up catch-up covers whatever a closed feed dropped. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace verdict::cases {

class CaseFeed {
 public:
  // Never blocks; ignored once closed.
  void Push(uint64_t seq) {
    {
      std::lock_guard lock(mu_);
      if (closed_) return;
      seqs_.push_back(seq);
    }
    cv_.notify_one();
  }
  // Waits for sequence numbers and moves them all into `out`; false once closed.
  bool Take(std::vector<uint64_t>* out) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return closed_ || !seqs_.empty(); });
    if (closed_) return false;
    out->assign(seqs_.begin(), seqs_.end());
    seqs_.clear();
    return true;
  }
  void Close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<uint64_t> seqs_;  // guarded by mu_
  bool closed_ = false;        // guarded by mu_
};

}  // namespace verdict::cases
