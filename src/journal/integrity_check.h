// What the journal checks of a data directory before and while it serves it
// (docs/journal_format.md, "Verify before serving"): CheckTail, the fast check at open of the
// chain from the latest signed checkpoint to the head; BackgroundVerify, the thread that runs the
// slow checks (the store's checksums, the whole chain) once the engine serves. CheckTail is a
// stateless function; a BackgroundVerify owns its thread and is thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <thread>

#include "common/result.h"
#include "journal/checkpoint.h"
#include "journal/head.h"
#include "journal/journal_backend.h"

namespace verdict::journal {

// Ok, or kDataLoss naming the first problem: the latest checkpoint's signature by `trusted_key`
// and that it lies within the chain and matches the record it ends at; then each record after it
// to the head, its hash over its own bytes and its link to the one before; and that the head
// names the last. Reads the records after the checkpoint (at most one checkpoint interval).
Status CheckTail(const JournalBackend& backend, const std::optional<JournalHead>& head,
                 const std::optional<Checkpoint>& checkpoint, const PublicKey& trusted_key);

class BackgroundVerify {
 public:
  using Check = std::function<Status(const std::atomic<bool>& cancel)>;
  // Runs `check` on a thread of its own (at nice 19), then `done` with its result on that
  // thread, unless the object is destroyed first.
  BackgroundVerify(Check check, std::function<void(const Status&)> done);
  // Cancels the check (it returns at its next look at `cancel`) and joins the thread; `done`
  // is then not called.
  ~BackgroundVerify();
  BackgroundVerify(const BackgroundVerify&) = delete;
  BackgroundVerify& operator=(const BackgroundVerify&) = delete;

  // Whether the check has not finished yet.
  bool running() const { return running_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancel_{false};
  std::atomic<bool> running_{true};
  std::thread thread_;  // last: started once the flags above exist
};

}  // namespace verdict::journal
