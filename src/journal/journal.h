// Journal: the durable, hash-chained decision journal with group commit; the façade over its
// parts. Enqueue assigns the sequence number in the caller's order and returns at once; group
// commit (group_commit.h) writes queued entries in sequence order, many per group, on its writer
// thread, its committer thread or, with commit_on_event_loop, the event-loop thread that enqueued
// them, and the thread that wrote a group runs its callbacks. Storage is behind JournalBackend
// (journal_backend.h; RocksDB unless JournalOptions::open_backend). Reads, the registry and
// recovery are in journal_reads.cc, journal_registry.cc and journal_recovery.cc. Thread-safe; owns
// its group commit (and its threads), backend, signer and cipher.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"
#include "journal/admin_event.h"
#include "journal/checkpoint.h"
#include "journal/envelope.h"
#include "journal/merkle.h"
#include "journal/record.h"
#include "journal/state_seal.h"

// Only a pointer to it is kept here (JournalOptions::file_system): includers need no RocksDB.
namespace rocksdb {
class FileSystem;
}  // namespace rocksdb

namespace verdict::journal {

class BackgroundVerify;
class GroupCommit;
struct JournalHead;
class JournalBackend;
class PayloadCipher;

enum class Durability {
  kSync,   // a callback reports success only after the group is fsynced (I1): the store's WAL,
           // or the commit log's frame (commit_log_bytes)
  kAsync,  // no fsync: acknowledged decisions can be lost on power failure; benchmarks only
};

struct JournalOptions;
// Opens the storage a journal writes to (see JournalBackend).
using BackendOpener =
    std::function<Result<std::unique_ptr<JournalBackend>>(const JournalOptions& options)>;

struct JournalOptions {
  std::string data_dir;
  Durability durability = Durability::kSync;
  // A checkpoint is signed after this many records, or after checkpoint_interval_us when there
  // are records it does not yet cover, and on clean close.
  uint64_t checkpoint_every_records = 100'000;
  int64_t checkpoint_interval_us = int64_t{10} * 1'000'000;
  // Upper bound on entries per WriteBatch.
  size_t max_group_size = 8192;
  // At an arrival rate of at least group_delay_above_per_s entries a second, the writer waits
  // up to group_delay_us for more before it takes a group, so that one fdatasync serves more
  // decisions (GroupPacer). 0: never waits.
  int64_t group_delay_us = 0;
  double group_delay_above_per_s = 5000;
  // An entry enqueued on an event-loop thread (common/event_loop.h) while neither the writer,
  // the committer nor another loop thread holds a group does not wake the writer: that thread
  // commits the queue (its turn's entries, and any other thread's queued meanwhile) in one idle
  // step once its loop turn has run (EventLoop::PostWhenIdle). No hand-off to the writer and
  // back. Only below the rate at which the writer would wait for more (group_delay_above_per_s).
  // The loops must run their idle work (stop) before the journal is destroyed.
  bool commit_on_event_loop = false;
  // Enqueue blocks while this many entries wait for the writer: backpressure from the disk.
  size_t max_pending = 65536;
  // Reject an Enqueue whose (tenant, transaction id) is already journaled or pending, with
  // kAlreadyExists: the last line of defence for idempotency under concurrent retries.
  bool reject_duplicate_transactions = true;
  // Fail closed when the data directory's file system has less free space than this before a
  // group is written. RocksDB 7.8 (Debian 12) can abort the process on an assertion when a
  // write runs into ENOSPC, so the journal stops before the disk is actually full.
  uint64_t min_free_bytes = uint64_t{64} << 20;
  // Encrypt record payloads at rest with a data key wrapped by the 32-byte KEK in this file
  // (0600). Empty: payloads are stored in the clear. A journal first opened with a KEK also
  // keeps account numbers and transaction ids out of its index keys (index_keys.h).
  std::string kek_file;
  // The cipher new records are encrypted with (records under the other one still decrypt).
  PayloadCipherKind cipher = PayloadCipherKind::kAes256Gcm;
  const Clock* clock = &SystemClock::Instance();
  MetricsRegistry* metrics = nullptr;  // not owned; may be null
  // Called during Open for every stored account state entry (recovery), before Open returns;
  // its time counts in recovery_seconds. A non-ok Status aborts Open.
  // `tag`: the state's seal (StateUpdate::tag), null where the journal does not seal states.
  std::function<Status(std::string_view key, std::string_view value, const StateTag* tag)>
      on_recovered_state;
  // With kSync and a size above 0, a group is made durable by a frame in the commit log, a file
  // of this size filled once and then overwritten (CommitLog), and the store's WAL is written
  // without a sync; the store's WAL is synced in the background each time one of the log's two
  // halves is full (BackgroundSync). 0: every group syncs the store's WAL instead.
  uint64_t commit_log_bytes = 0;
  // The commit log is written with O_DIRECT where the file system takes it (DirectRWFile);
  // false keeps it in the page cache (for side-by-side benchmarks).
  bool commit_log_direct_io = true;
  // Above 0: the store's flushes and compactions run at idle priority (SCHED_IDLE) and are
  // raised to normal once they have run this long (BackgroundPriority), where the process may
  // raise them; else, or at 0, at normal priority throughout.
  int64_t background_idle_us = 0;
  // Test hook: RocksDB's file system (see FaultInjectingFileSystem). Null: the default.
  std::shared_ptr<rocksdb::FileSystem> file_system;
  // Opens the storage the journal writes through, in place of the RocksDB store in data_dir
  // (e.g. a cluster's PostgreSQL, src/cluster). Null: RocksDB. The checkpoint signer's key
  // stays in data_dir either way, which is created if missing.
  BackendOpener open_backend;
  // A data directory whose checks at open fail (docs/journal_format.md, "Verify before serving":
  // the chain from the latest checkpoint to the head, the head, commit log frames lost or not
  // following the store) is opened failed closed, naming the damage, instead of refused: reads
  // answer, nothing is written (`verdict serve`: /readyz and --read-only-investigation). A store
  // RocksDB itself refuses to open is refused either way.
  bool open_damaged = false;
  // Once open, the store's files are checked against their checksums and the records it held
  // at open, from the first, against the chain, the checkpoints and the indexes, on a thread of
  // their own; damage found fails the journal closed (integrity()).
  bool verify_in_background = true;
};

// What is known of a journal's stored data (Journal::integrity).
enum class IntegrityState {
  kVerifying,  // the fast checks at open passed; the background checks run
  kVerified,   // every check passed (or verify_in_background is off: the fast ones)
  kDamaged,    // a check failed: the journal has failed closed (detail names the damage)
};
struct Integrity {
  IntegrityState state = IntegrityState::kVerifying;
  std::string detail;  // the damage, when kDamaged
};

struct StateUpdate {
  std::string key;     // account key; opaque to the journal
  std::string value;   // the account's new state; opaque to the journal
  bool erase = false;  // delete the key instead of writing value
  // For the sealed digest of the stored states (state_seal.h), where the journal seals them
  // (state_sealer() not null): the tag of `value` (all zero: the journal computes it), and,
  // when replaced_known, the tag of the stored value this one replaces or erases (absent: none
  // is stored). Otherwise the journal finds that tag itself, from the store the first time it
  // meets the key and from memory after: correct, at a store read and a remembered tag per key,
  // which a caller that keeps its states' seals saves. A wrong replaced_tag makes the stored
  // digest wrong: the next open refuses the states.
  StateTag tag{};
  std::optional<StateTag> replaced_tag;
  bool replaced_known = false;
};

struct JournalEntry {
  JournalRecord record;  // seq and hashes are assigned by the journal
  std::vector<StateUpdate> state_updates;
  // A realtime decision: the writer takes its group at once rather than wait for more
  // entries (group_delay_us).
  bool urgent = false;
};

struct CommitInfo {
  uint64_t seq = 0;
  Digest record_hash{};
};

// Runs on the thread that wrote the group (the writer, the committer, or an event-loop thread
// in its idle step), after the group is durable, in sequence order (the case store's
// high-water mark relies on it); keep it short (hand the response to an I/O thread) and never
// call Enqueue or Flush from it: the journal's own thread would wait on itself.
using CommitCallback = std::function<void(const Result<CommitInfo>&)>;

struct StoredRecord {
  JournalRecord record;
  bool durable = true;  // false: enqueued, its group not yet committed
};

// What a request with an already-seen transaction id is (idempotency).
enum class Idempotency {
  kNew,       // not journaled or pending: decide it
  kReplay,    // same canonical input: answer with the stored decision (HTTP 200)
  kConflict,  // same transaction id, different input: HTTP 409
};

struct IdempotencyCheck {
  Idempotency verdict = Idempotency::kNew;
  std::optional<StoredRecord> existing;  // set unless kNew; may still be pending (not durable)
};

struct InclusionProof {
  uint64_t seq = 0;
  uint64_t tree_size = 0;
  Digest leaf_hash{};
  std::vector<Digest> path;
  Digest root{};
};

class Journal {
 public:
  static Result<std::unique_ptr<Journal>> Open(const JournalOptions& options);
  // Commits everything already enqueued, signs a final checkpoint, stops the writer. With
  // commit_on_event_loop, only once the loops that enqueued have stopped: an idle step they
  // queued refers to the journal.
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Validates, assigns the next sequence number and queues the entry; returns the number.
  // Cheap enough to call under the engine's stripe locks, so journal order is state order (I2);
  // blocks only when max_pending entries are queued. On an error return `done` is never called;
  // otherwise it is called exactly once, with the commit or kUnavailable.
  Result<uint64_t> Enqueue(JournalEntry entry, CommitCallback done);
  // Calls `done` once every record up to `seq` is durable (at once, on this thread, if it is),
  // or with kUnavailable if the journal fails first.
  void WhenDurable(uint64_t seq, std::function<void(const Status&)> done);
  // Blocks until everything enqueued before the call is durable; returns the failure if not.
  Status Flush();
  // A thread that will block until something it enqueued is durable calls this first (Flush
  // and RecordAdminEvent do): with commit_on_event_loop, an entry enqueued on an event-loop
  // thread waits for that thread's idle step, which a blocked thread would never reach. Hands
  // the queue to the writer instead.
  void HandLoopCommitToWriter();

  // False after a write or sync error: the journal has failed closed and stays so until the
  // process restarts (and recovers from the store).
  bool healthy() const;
  Status health() const;              // Ok, or kUnavailable with the reason
  uint64_t durable_sequence() const;  // the last committed seq (0: none)
  Integrity integrity() const EXCLUDES(integrity_mu_);
  // Whether the commit log is written with O_DIRECT (false without a commit log).
  bool commit_log_direct_io() const { return commit_log_direct_io_; }
  // Entries enqueued and not yet durable (queued or in the group being written); 0 once the
  // journal has failed closed.
  uint64_t backlog() const;
  Digest last_hash() const;  // record hash of durable_sequence()
  double recovery_seconds() const { return recovery_seconds_; }
  const PublicKey& public_key() const { return signer_->public_key(); }
  // Seals account states (StateUpdate::tag); null where the backend keeps no states of its own
  // to seal (a cluster's shared PostgreSQL). Lives as long as the journal.
  const StateSealer* state_sealer() const { return state_sealer_ ? &*state_sealer_ : nullptr; }

  // Committed records only. Every read below fails with kDataLoss when stored data cannot be
  // read back (kUnavailable once the journal has failed closed), naming the object; the cause
  // is logged, never returned (it may quote the store).
  Result<std::optional<JournalRecord>> FindByDecisionId(const Uuid& decision_id) const;
  Result<std::optional<JournalRecord>> ReadRecord(uint64_t seq) const;
  // Idempotency lookup: committed or still pending (see StoredRecord::durable).
  Result<std::optional<StoredRecord>> FindByTransaction(std::string_view tenant,
                                                        std::string_view transaction_id) const;
  // FindByTransaction plus the comparison of SHA-256(canonical_input) with the stored hash.
  // A pending kReplay must not be answered before WhenDurable(existing->record.seq) (I1).
  Result<IdempotencyCheck> CheckIdempotency(std::string_view tenant,
                                            std::string_view transaction_id,
                                            std::string_view canonical_input) const;
  // Journals an admin event (who did what, to which object) in the chain and waits until it
  // is durable: an admin change is acknowledged only once its record is on disk. Do not call
  // from a commit callback (whichever thread runs it).
  Status RecordAdminEvent(const AdminEvent& event);
  // A tenant's admin events, newest first, with seq < before_seq, at most `limit`.
  Result<std::vector<JournalRecord>> ListAdminEvents(std::string_view tenant, size_t limit,
                                                     uint64_t before_seq = UINT64_MAX) const;

  // The tenants that have admin events, in order: what the registry's checks against the
  // journal walk, so that a tenant's objects deleted from the registry all at once are missed too.
  Result<std::vector<std::string>> AdminTenants() const;

  // Newest first, records with seq < before_seq, at most `limit`.
  Result<std::vector<JournalRecord>> ListByAccount(std::string_view tenant,
                                                   std::string_view account, size_t limit,
                                                   uint64_t before_seq = UINT64_MAX) const;

  // Slow by design (the state family's memtable has no index; a Get scans every entry): for
  // tests and tools, never per decision.
  Result<std::optional<std::string>> GetAccountState(std::string_view key) const;
  Status ForEachAccountState(
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const;

  // Registry column family; writes are synced and independent of the record order. While the
  // journal is damaged (integrity()), synced writes are refused and unsynced ones dropped.
  // `sync = false` only for what can be derived again from the journal's records (cases opened
  // from decisions, their high-water mark): an fsync there would queue the decisions' own
  // writes behind it. RocksDB keeps unsynced writes in WAL order, so a crash loses a suffix.
  Status PutRegistry(std::string_view key, std::string_view value, bool sync = true);
  Status DeleteRegistry(std::string_view key);
  Result<std::optional<std::string>> GetRegistry(std::string_view key) const;
  Result<std::vector<std::pair<std::string, std::string>>> ListRegistry(
      std::string_view prefix) const;

  Result<std::optional<Checkpoint>> LatestCheckpoint() const;
  // Inclusion of record `seq` in the tree of the first `tree_size` records (reads them all).
  Result<InclusionProof> ProveInclusion(uint64_t seq, uint64_t tree_size) const;

  // For tests: no thread holds a group (the writer waits for work, the committer and every
  // loop are idle), so only the arrival rate decides whether a loop thread commits next.
  bool IdleForTesting() const;

 private:
  explicit Journal(const JournalOptions& options);
  // Opens the backend and the signer, checks the chain's head, loads the data keys and replays
  // account state (on_recovered_state); then starts group commit where the chain ends.
  Status Recover();
  // Refuses to extend a chain whose end the backend cannot vouch for.
  Status CheckHead(const std::optional<JournalHead>& head) const;
  // Loads the state sealer (where states are sealed) and passes every stored account state to
  // on_recovered_state; `digest`: the states' sealed digest, which a sealed head's must equal
  // (else `damage` names it).
  Status RecoverStates(const std::optional<StateDigest>& sealed, std::optional<StateDigest>& digest,
                       std::string& damage);
  // The checks at open after CheckHead (journal_recovery.cc): the chain's tail; empty or the
  // damage found. Errors other than damage are returned.
  Result<std::string> CheckAtOpen(const std::optional<JournalHead>& head,
                                  const std::optional<Checkpoint>& checkpoint) const;
  // Records the damage and fails closed.
  void MarkDamaged(const std::string& detail) EXCLUDES(integrity_mu_);
  // Starts BackgroundVerify over the records 1..through_seq.
  void StartBackgroundVerify(uint64_t through_seq);
  // Record `seq` as stored, its failure unanswered (ReadRecord answers it).
  Result<std::optional<JournalRecord>> DecodeRecordAt(uint64_t seq) const;
  // Records indexed under (tenant, account), newest first (ListByAccount, ListAdminEvents).
  Result<std::vector<JournalRecord>> ListIndexed(std::string_view tenant, std::string_view account,
                                                 size_t limit, uint64_t before_seq) const;

  const JournalOptions options_;
  const Clock& clock_;
  std::unique_ptr<JournalBackend> backend_;
  std::unique_ptr<CheckpointSigner> signer_;
  std::optional<StateSealer> state_sealer_;  // set by Recover, then immutable
  std::unique_ptr<PayloadCipher> cipher_;    // null when not encrypting
  bool commit_log_direct_io_ = false;
  double recovery_seconds_ = 0;
  mutable Mutex integrity_mu_;
  Integrity integrity_ GUARDED_BY(integrity_mu_);
  // Last: destroyed first, so that its threads commit what is queued and stop before the
  // backend closes.
  std::unique_ptr<GroupCommit> commit_;
  // Reads the backend and fails commit_ closed on damage: stopped first (~Journal).
  std::unique_ptr<BackgroundVerify> background_verify_;
};

}  // namespace verdict::journal
