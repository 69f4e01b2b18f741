#include "journal/integrity_check.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "journal/hash_chain.h"

namespace verdict::journal {
namespace {

std::string Seq(uint64_t seq) { return std::to_string(seq); }

Status Damaged(const std::string& what) { return DataLoss(what + "; run `verdict audit verify`"); }

// A read the store answers with a checksum mismatch or undecodable bytes (FromRocks: Corruption)
// is damage; anything else (I/O) is the read's own failure.
Status ReadFailed(const Status& read) {
  if (read.code() != StatusCode::kFailedPrecondition) return read;
  return Damaged("the store cannot read back its records: " + read.message());
}

// The checkpoint on its own and against the record it ends at; sets *prev to that record's hash.
Status CheckCheckpoint(const JournalBackend& backend, const Checkpoint& checkpoint,
                       const PublicKey& trusted_key, uint64_t last_seq, Digest* prev) {
  const std::string name = "checkpoint " + Seq(checkpoint.tree_size);
  if (!VerifyCheckpointSignature(checkpoint, trusted_key)) {
    return Damaged(name + " has no valid signature by this journal's key");
  }
  if (checkpoint.tree_size > last_seq) {
    return Damaged(name + " covers records beyond the head (" + Seq(last_seq) +
                   "): records were removed from the end");
  }
  Result<std::optional<std::string>> read = backend.ReadEntry(checkpoint.tree_size);
  if (!read.ok()) return ReadFailed(read.status());
  const std::optional<std::string>& stored = *read;
  if (!stored) {
    return Damaged("record " + Seq(checkpoint.tree_size) + ", which " + name +
                   " ends at, is missing");
  }
  Result<EntryView> entry = DecodeEntry(*stored);
  if (!entry.ok() || entry->record_hash != checkpoint.last_record_hash) {
    return Damaged("record " + Seq(checkpoint.tree_size) + " differs from what " + name +
                   " signed");
  }
  *prev = entry->record_hash;
  return Status::Ok();
}

}  // namespace

Status CheckTail(const JournalBackend& backend, const std::optional<JournalHead>& head,
                 const std::optional<Checkpoint>& checkpoint, const PublicKey& trusted_key) {
  const uint64_t last_seq = head ? head->last_seq : 0;
  Digest prev = kGenesisHash;
  uint64_t from = 1;
  if (checkpoint) {
    VERDICT_RETURN_IF_ERROR(CheckCheckpoint(backend, *checkpoint, trusted_key, last_seq, &prev));
    from = checkpoint->tree_size + 1;
    if (head && checkpoint->tree_size == last_seq && head->merkle.Root() != checkpoint->root) {
      return Damaged("the journal head's Merkle tree differs from checkpoint " + Seq(last_seq));
    }
  }
  uint64_t expected = from;
  std::string problem;
  const Status scanned =
      backend.ScanEntries(from, [&](uint64_t seq, std::string_view stored) -> Result<bool> {
        const std::string name = "record " + Seq(expected);
        if (seq != expected) {
          problem = name + " is missing";
          return false;
        }
        Result<EntryView> entry = DecodeEntry(stored);
        if (!entry.ok()) {
          problem = name + ": " + entry.status().message();
        } else if (entry->seq != seq) {
          problem = name + " holds the entry of record " + Seq(entry->seq);
        } else if (entry->prev_hash != prev) {
          problem = name + " does not link to the record before it";
        } else {
          prev = entry->record_hash;
          ++expected;
          return true;
        }
        return false;
      });
  if (!scanned.ok()) return ReadFailed(scanned);
  if (!problem.empty()) return Damaged(problem);
  if (expected - 1 != last_seq) {
    return Damaged("the journal head names " + Seq(last_seq) + " records but the chain ends at " +
                   Seq(expected - 1));
  }
  if (head && head->last_hash != prev) {
    return Damaged("the journal head does not match the last record");
  }
  return Status::Ok();
}

BackgroundVerify::BackgroundVerify(Check check, std::function<void(const Status&)> done)
    : thread_([this, check = std::move(check), done = std::move(done)] {
        // The lowest priority: it shares the cores with the decisions it must not slow down.
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);
        Status result = check(cancel_);
        if (!cancel_.load(std::memory_order_acquire)) done(result);
        running_.store(false, std::memory_order_release);
      }) {
  pthread_setname_np(thread_.native_handle(), "journal-verify");
}

BackgroundVerify::~BackgroundVerify() {
  cancel_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
}

}  // namespace verdict::journal
