// Journal: the durable, hash-chained decision journal with group commit. Enqueue assigns the
// sequence number in the caller's order and returns at once; a writer thread prepares queued
// entries in sequence order, many per RocksDB WriteBatch (at high arrival rates it first waits
// up to group_delay_us for more, unless an urgent entry waits), and writes and syncs each batch
// itself or, under a backlog, hands it to a committer thread while it prepares the next; with
// commit_on_event_loop, an event-loop thread that enqueued while the writer was idle commits its
// turn's entries itself. The thread that wrote a group runs its callbacks.
// Thread-safe; owns its writer and committer threads (and, with a commit log, the thread that
// syncs the store's WAL after each of the log's passes), store, signer and cipher.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "journal/admin_event.h"
#include "journal/background_sync.h"
#include "journal/checkpoint.h"
#include "journal/commit_log.h"
#include "journal/envelope.h"
#include "journal/group_pacer.h"
#include "journal/merkle.h"
#include "journal/record.h"
#include "journal/store.h"

namespace verdict::journal {

enum class Durability {
  kSync,   // a callback reports success only after the group is fsynced (I1): the store's WAL,
           // or the commit log's frame (commit_log_bytes)
  kAsync,  // no fsync: acknowledged decisions can be lost on power failure; benchmarks only
};

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
  // (0600). Empty: payloads are stored in the clear.
  std::string kek_file;
  const Clock* clock = &SystemClock::Instance();
  MetricsRegistry* metrics = nullptr;  // not owned; may be null
  // Called during Open for every stored account state entry (recovery), before Open returns;
  // its time counts in recovery_seconds. A non-ok Status aborts Open.
  std::function<Status(std::string_view key, std::string_view value)> on_recovered_state;
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
};

struct StateUpdate {
  std::string key;     // account key; opaque to the journal
  std::string value;   // the account's new state; opaque to the journal
  bool erase = false;  // delete the key instead of writing value
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

// What a request with an already-seen transaction id is (issue 5, idempotency).
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
  // Whether the commit log is written with O_DIRECT (false without a commit log).
  bool commit_log_direct_io() const { return commit_log_ && commit_log_->direct_io(); }
  // Entries enqueued and not yet durable (queued or in the group being written); 0 once the
  // journal has failed closed.
  uint64_t backlog() const;
  Digest last_hash() const;  // record hash of durable_sequence()
  double recovery_seconds() const { return recovery_seconds_; }
  const PublicKey& public_key() const { return signer_->public_key(); }

  // Committed records only.
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

  // Newest first, records with seq < before_seq, at most `limit`.
  Result<std::vector<JournalRecord>> ListByAccount(std::string_view tenant,
                                                   std::string_view account, size_t limit,
                                                   uint64_t before_seq = UINT64_MAX) const;

  // Slow by design (the state family's memtable has no index; a Get scans every entry): for
  // tests and tools, never per decision.
  Result<std::optional<std::string>> GetAccountState(std::string_view key) const;
  Status ForEachAccountState(
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const;

  // Registry column family; writes are synced and independent of the record order.
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
  struct Pending;
  explicit Journal(const JournalOptions& options);
  Status Recover();
  // Null unless options_.background_idle_us > 0 and the process may raise threads again.
  std::shared_ptr<BackgroundPriority> MakeBackgroundPriority();
  struct PreparedGroup;
  // The writer thread takes groups from the queue and prepares them (PrepareGroup); a group
  // is written and synced (CommitPrepared) by the committer thread while the writer prepares
  // the next (only under a backlog: kPipelineMinQueued), or by the writer itself when nothing
  // else is queued (no hand-off at low load).
  // Groups are written strictly in sequence order, one at a time. With commit_on_event_loop a
  // loop thread may take and commit a group itself (CommitOnLoop) while neither the writer nor
  // the committer holds one; whoever holds a group is recorded under mu_.
  void WriterLoop();
  // Idle work of the event loop that enqueued: commits the queue on this thread, or wakes the
  // writer when it or the committer holds a group.
  void CommitOnLoop();
  // Under mu_: moves up to max_group_size queued entries into `group`.
  void TakeGroupLocked(std::vector<std::shared_ptr<Pending>>& group);
  // The spare PreparedGroup's buffers (or a new one), and back when a group was not written.
  std::unique_ptr<PreparedGroup> TakeSpare();
  void ReturnSpare(std::unique_ptr<PreparedGroup> prepared);
  // Under mu_: the writer, the committer or a loop thread holds a group.
  bool GroupHeldLocked() const;
  // Writes and syncs `prepared` on this thread, after any group the committer holds.
  void CommitHere(std::unique_ptr<PreparedGroup> prepared);
  void CommitterLoop();
  // False when there is nothing to write or the group was already answered (failure).
  bool PrepareGroup(std::vector<std::shared_ptr<Pending>>& group, PreparedGroup& out);
  void HandOver(std::unique_ptr<PreparedGroup> prepared, bool stop);
  void CommitPrepared(PreparedGroup& prepared);
  // Writes a group's batch to the store and makes it durable as options_ ask: by the store's
  // WAL sync, or by a commit log frame. `first_seq` > `last_seq` for a group without records.
  Status WriteGroup(rocksdb::WriteBatch& batch, uint64_t first_seq, uint64_t last_seq);
  // On open: writes the commit log's frames the store lacks into it (synced), then opens the
  // log for writing, or removes it when this run has none.
  Status ReplayCommitLog();
  // Under commit_mu_; takes mu_ (order: commit_mu_, then mu_) and wakes the writer when idle.
  void SetCommitterBusy(bool busy);
  // The writer prepares a group while the committer writes one only once this many wait.
  static constexpr size_t kPipelineMinQueued = 64;
  void PutDecisionIndexes(const Pending& p, const std::string& seq_key,
                          rocksdb::WriteBatch& batch) const;
  // Records whose by_account index keys start with `prefix`, newest first.
  Result<std::vector<JournalRecord>> ListIndexed(const std::string& prefix, size_t limit,
                                                 uint64_t before_seq) const;
  // Ok, or kUnavailable when free space is below options_.min_free_bytes. `batch_bytes`: what
  // the group about to be written adds.
  Status CheckFreeSpace(size_t batch_bytes);
  void FailClosed(const Status& cause, std::vector<std::shared_ptr<Pending>>& group);
  bool CheckpointDueByTime() const;
  Result<bool> TransactionCommitted(const std::string& txn_key) const;

  const JournalOptions options_;
  const Clock& clock_;
  std::unique_ptr<JournalStore> store_;
  std::unique_ptr<CommitLog> commit_log_;  // null unless kSync with commit_log_bytes
  // Syncs the store's WAL over each commit log pass as it ends (WriteGroup); with commit_log_.
  // After store_, so that it is joined before the store closes.
  std::unique_ptr<BackgroundSync> wal_sync_;
  std::unique_ptr<CheckpointSigner> signer_;
  std::unique_ptr<PayloadCipher> cipher_;  // null when not encrypting
  double recovery_seconds_ = 0;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;             // writer waits for entries
  std::condition_variable not_full_cv_;         // Enqueue waits for room
  std::condition_variable started_cv_;          // Open waits for writer_started_
  std::deque<std::shared_ptr<Pending>> queue_;  // guarded by mu_
  // Keyed by a view of the entry's own Pending::txn_key (no key copy per decision); an entry
  // leaves the map when its Pending commits, or is replaced, key and value together.
  std::unordered_map<std::string_view, std::shared_ptr<Pending>> pending_txn_;  // guarded by mu_
  std::multimap<uint64_t, std::function<void(const Status&)>> waiters_;         // guarded by mu_
  uint64_t next_seq_ = 1;                                                       // guarded by mu_
  uint64_t committed_gen_ = 0;     // guarded by mu_; bumped whenever entries leave pending_txn_
  uint64_t durable_seq_ = 0;       // guarded by mu_
  Digest durable_hash_{};          // guarded by mu_
  Status failure_;                 // guarded by mu_; non-ok once failed closed
  bool stopping_ = false;          // guarded by mu_
  bool committer_busy_ = false;    // guarded by mu_; the committer holds or writes a group
  bool urgent_queued_ = false;     // guarded by mu_; an urgent entry waits in queue_
  bool writer_started_ = false;    // guarded by mu_; the writer has reached its loop
  bool writer_has_group_ = false;  // guarded by mu_; the writer is taking or holds a group
  bool loop_has_group_ = false;    // guarded by mu_; a loop thread holds a group (CommitOnLoop)

  GroupPacer pacer_;            // guarded by mu_
  const uint64_t instance_id_;  // unique in the process: names this journal in thread-local state

  // State of the thread that holds the group being prepared (the writer, or a loop thread in
  // CommitOnLoop; mu_ hands it over): the chain as prepared, ahead of what is durable
  // (durable_hash_) by the groups being written, handed over and prepared (at most three).
  Digest chain_hash_{};
  CompactMerkle merkle_;
  uint64_t checkpoint_size_ = 0;
  int64_t checkpoint_time_us_ = 0;

  // Free-space check state, touched only by the thread committing a group (groups are
  // committed one at a time, the hand-off under commit_mu_ ordering them).
  int64_t space_checked_ns_ = 0;      // when statvfs last ran (0: never)
  uint64_t space_free_bytes_ = 0;     // what it found
  uint64_t written_since_check_ = 0;  // batch bytes written since

  // Hand-off from the writer to the committer.
  std::mutex commit_mu_;
  // Two condition variables, so that each wake-up is for a thread that has something to do:
  // on this project's VM every needless wake-up is a context switch costing tens of µs.
  std::condition_variable committer_cv_;      // the committer waits for a group (or the stop)
  std::condition_variable writer_cv_;         // the writer waits for the committer to be free
  std::unique_ptr<PreparedGroup> to_commit_;  // guarded by commit_mu_; waits for the committer
  std::unique_ptr<PreparedGroup> spare_;      // guarded by commit_mu_; buffers for the next one
  bool committing_ = false;                   // guarded by commit_mu_; a group is being written
  bool commit_stop_ = false;                  // guarded by commit_mu_

  Counter* commits_total_ = nullptr;
  Counter* loop_commits_total_ = nullptr;
  Counter* records_total_ = nullptr;
  Counter* failures_total_ = nullptr;
  Histogram* group_size_ = nullptr;
  Histogram* commit_seconds_ = nullptr;
  Histogram* wal_sync_seconds_ = nullptr;
  Counter* wal_sync_waits_total_ = nullptr;
  Gauge* recovery_gauge_ = nullptr;
  Gauge* healthy_gauge_ = nullptr;

  std::thread writer_;
  std::thread committer_;
};

}  // namespace verdict::journal
