// JournalBackend: the storage seam under the journal. Group commit hands it groups of prepared
// records (sequence numbers and chain hashes already assigned) to make durable; the read API,
// the registry and recovery read through it. RocksJournalBackend (rocks_backend.h) is the
// implementation. Owned by the Journal; see each part's contract for which threads call it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/uuid.h"
#include "journal/checkpoint.h"
#include "journal/head.h"
#include "journal/record.h"

namespace verdict::journal {

class PayloadCipher;
struct StateUpdate;

// The writes of one group commit, built up by the thread preparing the group and then handed to
// JournalBackend::CommitGroup. A backend keeps its buffers across Clear, so that one object
// serves group after group without fresh allocations (the journal keeps a spare). Not
// thread-safe: one thread at a time builds or commits it.
class BackendGroup {
 public:
  virtual ~BackendGroup() = default;
  // Forgets every write, keeping the buffers.
  virtual void Clear() = 0;
  // Record `seq`: its stored entry (EncodeEntry's bytes: framing, previous hash, payload, maybe
  // encrypted) and its index entries: for a decision the decision id, `txn_key`
  // (IndexedTransactionKey) and `indexed_accounts` (IndexedAccounts: each distinct account in its
  // index form, maybe a keyed hash); for an admin event the tenant's admin index. Called in
  // sequence order, without gaps.
  virtual void AddRecord(uint64_t seq, std::string_view stored_entry, const JournalRecord& record,
                         std::string_view txn_key,
                         const std::vector<std::string>& indexed_accounts) = 0;
  // An account state write or erase, applied in the order added (after the previous ones).
  virtual void AddStateUpdate(const StateUpdate& update) = 0;
  virtual void AddCheckpoint(const Checkpoint& checkpoint) = 0;
  // The chain's head once the group is durable; set for every group that has records.
  virtual void SetHead(const JournalHead& head) = 0;
  // What the group adds to storage, in bytes (free-space checks).
  virtual size_t ByteSize() const = 0;
};

// The contract an implementation keeps:
//
// Group commit. CommitGroup is called by one thread at a time (the journal's committing
// thread, whichever it is), with groups in sequence order: a group's first record is the last
// committed record + 1, and a group without records (first_seq > last_seq: a checkpoint only)
// comes between two groups that have them. A group is atomic: after a crash at any point,
// storage holds either all of its writes (records, indexes, state updates, checkpoint, head) or
// none, and every group committed before it. CommitGroup returns Ok only once the group is
// durable as JournalOptions::durability asks (kSync: it survives a power loss); nothing of it
// may be visible to the read functions before it is durable. A non-ok return means the group
// may or may not be stored: the journal fails closed (answers every waiting entry with
// kUnavailable and writes nothing more until a restart, whose recovery then decides from the
// head). A backend that shares its storage with another writer (a fencing epoch, checked in
// the same transaction as the group's writes) fails the group when the epoch moved.
//
// Reads see committed groups only and may run on any thread, concurrently with a commit.
//
// Recovery (Journal::Open, before any group) reads the head, the last record and the latest
// checkpoint, the wrapped data keys, and every account state; an implementation repairs what its
// own durability scheme needs (e.g. replaying a commit log) before it is handed to the journal.
//
// The registry is a key/value space beside the journal, written independently of groups.
class JournalBackend {
 public:
  virtual ~JournalBackend() = default;

  // Group commit.
  virtual std::unique_ptr<BackendGroup> NewGroup() = 0;
  // Makes `group` durable (see above); its records are first_seq..last_seq.
  virtual Status CommitGroup(BackendGroup& group, uint64_t first_seq, uint64_t last_seq) = 0;

  // Recovery.
  // The head of the last committed group; none for an empty journal.
  virtual Result<std::optional<JournalHead>> ReadHead() const = 0;
  // Unwraps every stored data key into `cipher`; sets *max_id (0 if none).
  virtual Status LoadDataKeys(PayloadCipher& cipher, uint32_t* max_id) const = 0;
  // Stores a wrapped data key durably before it returns.
  virtual Status PutDataKey(uint32_t id, std::string_view wrapped) = 0;

  // Reads of committed records.
  // The stored entry of record `seq` (EncodeEntry's bytes), none if absent.
  virtual Result<std::optional<std::string>> ReadEntry(uint64_t seq) const = 0;
  // Calls fn(seq, stored entry) for records from `first_seq` on, in order, while it returns true.
  virtual Status ScanEntries(
      uint64_t first_seq,
      const std::function<Result<bool>(uint64_t seq, std::string_view entry)>& fn) const = 0;
  virtual Result<std::optional<uint64_t>> FindByDecisionId(const Uuid& decision_id) const = 0;
  // `txn_key`: IndexedTransactionKey(cipher, tenant, transaction id).
  virtual Result<std::optional<uint64_t>> FindByTransaction(std::string_view txn_key) const = 0;
  // Calls fn(seq) for the records indexed under (tenant, account), newest first, from the
  // newest below `before_seq` on, while it returns true. `account` is in its index form
  // (IndexedAccount); the empty account is the tenant's admin events.
  virtual Status ScanIndex(std::string_view tenant, std::string_view account, uint64_t before_seq,
                           const std::function<Result<bool>(uint64_t seq)>& fn) const = 0;
  // The tenants that have admin events, in order.
  virtual Result<std::vector<std::string>> AdminTenants() const = 0;
  virtual Result<std::optional<Checkpoint>> LatestCheckpoint() const = 0;

  // Account state, as the committed groups left it.
  virtual Result<std::optional<std::string>> GetState(std::string_view key) const = 0;
  virtual Status ForEachState(
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const = 0;

  // Integrity (Journal::Open's checks; docs/journal_format.md, "Verify before serving").
  // Damage found while opening that the backend could not repair, such as acknowledged groups
  // its commit log lost; empty when none. Only with JournalOptions::open_damaged: without it
  // the backend refuses to open instead.
  virtual std::string DamageFoundAtOpen() const { return {}; }
  // The slow checks of what is stored, beside a running engine: the storage's own checksums and
  // the chain of records 1..through_seq with their checkpoints and indexes. kDataLoss naming
  // the damage; Ok once `cancel` is set, and Ok where the backend has no such check (a
  // PostgreSQL backend leaves its pages to the database's own checks).
  virtual Status VerifyAtRest(uint64_t through_seq, const PublicKey& trusted_key,
                              const PayloadCipher* cipher, const std::atomic<bool>& cancel) const {
    (void)through_seq;
    (void)trusted_key;
    (void)cipher;
    (void)cancel;
    return Status::Ok();
  }

  // Registry (Journal::PutRegistry and the rest; the same contract).
  virtual Status PutRegistry(std::string_view key, std::string_view value, bool sync) = 0;
  virtual Status DeleteRegistry(std::string_view key) = 0;
  virtual Result<std::optional<std::string>> GetRegistry(std::string_view key) const = 0;
  virtual Result<std::vector<std::pair<std::string, std::string>>> ListRegistry(
      std::string_view prefix) const = 0;
};

}  // namespace verdict::journal
