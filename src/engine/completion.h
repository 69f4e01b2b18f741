// Completion: "whichever part finishes last answers", for work whose parts end on different
// threads: a decision (the journal's commit and the deciding worker's bookkeeping,
// PendingDecision) and a batch (each item's durable answer, Engine::SubmitBatch). Each part
// writes only its own share of the answer, then calls Arrive(); the one call that returns true
// comes after every other part's Arrive (the mutex orders them, so it sees their writes) and
// its caller answers, outside the lock. Owned by the work it completes; thread-safe.
#pragma once

#include <cstddef>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict {

class Completion {
 public:
  explicit Completion(size_t parts) : remaining_(parts) {}
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;

  // One part is done. True for exactly one call, the last of the `parts`: its caller answers.
  [[nodiscard]] bool Arrive() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return --remaining_ == 0;
  }

 private:
  Mutex mu_;
  size_t remaining_ GUARDED_BY(mu_);
};

}  // namespace verdict
