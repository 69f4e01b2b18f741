// GroupCommit: the journal's group commit protocol. Enqueue assigns sequence numbers and queues
// entries; a writer thread takes groups in sequence order, prepares them (chain hashes, Merkle
// frontier, checkpoints, the backend's writes) and commits them itself or, under a backlog,
// hands them to a committer thread while it prepares the next; with commit_on_event_loop an
// event-loop thread may take and commit a group in its idle step. Whoever holds a group is one
// explicit state (Holder) under mu_. The thread that wrote a group runs its callbacks, in
// sequence order. Owned by the Journal; owns its writer and committer threads; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "journal/checkpoint.h"
#include "journal/group_pacer.h"
#include "journal/journal.h"
#include "journal/journal_backend.h"
#include "journal/merkle.h"

namespace verdict::journal {

class GroupCommit {
 public:
  // Where the chain stands on open (recovery's result).
  struct ChainStart {
    uint64_t last_seq = 0;
    Digest last_hash{};
    CompactMerkle merkle;
    uint64_t checkpoint_size = 0;  // tree size of the latest checkpoint
    // The stored states' sealed digest, where the journal seals them (`sealer`): each group's
    // head carries it as the group's state updates leave it.
    std::optional<StateDigest> state_digest;
    const StateSealer* sealer = nullptr;  // outlives the GroupCommit
  };

  // `backend`, `signer` and `cipher` (null: records in the clear) must outlive this object.
  GroupCommit(const JournalOptions& options, JournalBackend& backend,
              const CheckpointSigner& signer, const PayloadCipher* cipher, ChainStart start);
  // Commits everything already enqueued (and a final checkpoint), then stops the threads.
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Starts the writer and committer threads; returns once the writer waits for work.
  void Start() EXCLUDES(mu_);

  // Journal's functions of the same names.
  Result<uint64_t> Enqueue(JournalEntry entry, CommitCallback done) EXCLUDES(mu_);
  void WhenDurable(uint64_t seq, std::function<void(const Status&)> done) EXCLUDES(mu_);
  void HandLoopCommitToWriter() EXCLUDES(mu_);
  bool healthy() const EXCLUDES(mu_);
  Status health() const EXCLUDES(mu_);
  // Fails closed for `cause` (damage found in what is stored): every queued and later entry is
  // answered with kUnavailable, and nothing more is written until a restart.
  void Refuse(const Status& cause) EXCLUDES(mu_);
  uint64_t durable_sequence() const EXCLUDES(mu_);
  uint64_t backlog() const EXCLUDES(mu_);
  Digest last_hash() const EXCLUDES(mu_);
  bool IdleForTesting() const EXCLUDES(mu_);

  // The last sequence number handed out (0: none).
  uint64_t last_enqueued() const EXCLUDES(mu_);
  // The pending (enqueued, not yet durable) decision under `txn_key`, if any.
  std::optional<JournalRecord> FindPending(std::string_view txn_key) const EXCLUDES(mu_);

  // The writer prepares a group while the committer writes one only once this many wait.
  static constexpr size_t kPipelineMinQueued = 64;

 private:
  struct Pending;
  struct PreparedGroup;
  using Group = std::vector<std::shared_ptr<Pending>>;

  // Who holds groups. At most one thread takes groups from the queue and prepares them (and
  // owns the chain state below while it does): the writer or a loop thread. The committer holds
  // a group the writer handed it, from the hand-over until it has written it and no other waits
  // for it; meanwhile the writer may take and prepare the next one (a backlog).
  enum class Holder : uint8_t {
    kNone,
    kWriter,              // the writer takes, prepares or writes a group
    kLoop,                // a loop thread takes, prepares and writes a group (CommitOnLoop)
    kCommitter,           // the committer holds a handed-over group
    kCommitterAndWriter,  // the committer holds one, and the writer prepares the next
  };

  // Holder transitions, under mu_; each asserts (debug builds) that it starts from a state it
  // may start from.
  void WriterTakesLocked() REQUIRES(mu_);
  void WriterReleasesLocked() REQUIRES(mu_);
  void LoopTakesLocked() REQUIRES(mu_);
  void LoopReleasesLocked() REQUIRES(mu_);
  void HandToCommitterLocked() REQUIRES(mu_);
  void CommitterReleasesLocked() REQUIRES(mu_);
  bool CommitterHoldsLocked() const REQUIRES(mu_) {
    return holder_ == Holder::kCommitter || holder_ == Holder::kCommitterAndWriter;
  }

  // The writer thread takes groups from the queue and prepares them (PrepareGroup); a group
  // is written and synced (CommitPrepared) by the committer thread while the writer prepares
  // the next (only under a backlog: kPipelineMinQueued), or by the writer itself when nothing
  // else is queued (no hand-off at low load). Groups are written strictly in sequence order,
  // one at a time.
  void WriterLoop() EXCLUDES(mu_, commit_mu_);
  // The writer's wait for work, then its take of a group; returns whether it is the last.
  bool WriterTakeGroup(Group& group) EXCLUDES(mu_);
  // Idle work of the event loop that enqueued: commits the queue on this thread, or wakes the
  // writer when it or the committer holds a group.
  void CommitOnLoop() EXCLUDES(mu_, commit_mu_);
  // Moves up to max_group_size queued entries into `group`.
  void TakeGroupLocked(Group& group) REQUIRES(mu_);
  // The spare PreparedGroup's buffers (or a new one), and back when a group was not written.
  std::unique_ptr<PreparedGroup> TakeSpare() EXCLUDES(commit_mu_);
  void ReturnSpare(std::unique_ptr<PreparedGroup> prepared) EXCLUDES(commit_mu_);
  // Writes and syncs `prepared` on this thread (`who`: the writer or a loop thread), after any
  // group the committer holds.
  void CommitHere(std::unique_ptr<PreparedGroup> prepared, Holder who) EXCLUDES(mu_, commit_mu_);
  void CommitterLoop() EXCLUDES(mu_, commit_mu_);
  // False when there is nothing to write or the group was already answered (failure).
  bool PrepareGroup(Group& group, PreparedGroup& out) EXCLUDES(mu_);
  // Adds the group's records and state updates to out.writes; false after a failure (answered).
  bool AddRecords(Group& group, PreparedGroup& out, Digest& prev, CompactMerkle& merkle);
  // The tag of the stored state `update` replaces (StateUpdate::replaced_known), remembering the
  // tag it leaves; by the thread preparing the group.
  Result<std::optional<StateTag>> ReplacedTag(const StateUpdate& update);
  void HandOver(std::unique_ptr<PreparedGroup> prepared, bool stop) EXCLUDES(mu_, commit_mu_);
  void CommitPrepared(PreparedGroup& prepared) EXCLUDES(mu_, commit_mu_);
  // Marks the group durable and takes the WhenDurable waiters it satisfies.
  void MarkDurable(const PreparedGroup& prepared,
                   std::vector<std::function<void(const Status&)>>& ready) EXCLUDES(mu_);
  // Hands a group to the committer (busy) or records that it has none left; takes mu_ (order:
  // commit_mu_, then mu_) and wakes the writer when the committer is free.
  void SetCommitterBusy(bool busy) REQUIRES(commit_mu_) EXCLUDES(mu_);
  void FailClosed(const Status& cause, Group& group) EXCLUDES(mu_);
  // Owned by the chain's holder (or under mu_ while no one holds it).
  bool CheckpointDueByTime() const;

  const JournalOptions& options_;  // the Journal's, which outlives this object
  const Clock& clock_;
  JournalBackend& backend_;
  const CheckpointSigner& signer_;
  const StateSealer* const sealer_;  // null: states are not sealed
  const PayloadCipher* const cipher_;
  const uint64_t instance_id_;  // unique in the process: names this object in thread-local state

  // Lock order: commit_mu_, then mu_ (SetCommitterBusy).
  // Hand-off from the writer to the committer.
  Mutex commit_mu_ ACQUIRED_BEFORE(mu_);
  // Two condition variables, so that each wake-up is for a thread that has something to do: a
  // needless wake-up is a context switch (docs/PERFORMANCE.md).
  CondVar committer_cv_;  // the committer waits for a group (or the stop)
  CondVar writer_cv_;     // the writer waits for the committer to be free
  std::unique_ptr<PreparedGroup> to_commit_ GUARDED_BY(commit_mu_);  // waits for the committer
  std::unique_ptr<PreparedGroup> spare_ GUARDED_BY(commit_mu_);      // buffers for the next one
  // The thread writing a group now (kNone, kCommitter, kWriter or kLoop): one at a time.
  Holder writing_ GUARDED_BY(commit_mu_) = Holder::kNone;
  bool commit_stop_ GUARDED_BY(commit_mu_) = false;

  mutable Mutex mu_ ACQUIRED_AFTER(commit_mu_);
  CondVar work_cv_;      // the writer waits for entries
  CondVar not_full_cv_;  // Enqueue waits for room
  CondVar started_cv_;   // Start waits for writer_started_
  std::deque<std::shared_ptr<Pending>> queue_ GUARDED_BY(mu_);
  // Keyed by a view of the entry's own Pending::txn_key (no key copy per decision); an entry
  // leaves the map when its Pending commits, or is replaced, key and value together.
  std::unordered_map<std::string_view, std::shared_ptr<Pending>> pending_txn_ GUARDED_BY(mu_);
  std::multimap<uint64_t, std::function<void(const Status&)>> waiters_ GUARDED_BY(mu_);
  uint64_t next_seq_ GUARDED_BY(mu_) = 1;
  uint64_t committed_gen_ GUARDED_BY(mu_) = 0;  // bumped whenever entries leave pending_txn_
  uint64_t durable_seq_ GUARDED_BY(mu_) = 0;
  Digest durable_hash_ GUARDED_BY(mu_){};
  Status failure_ GUARDED_BY(mu_);  // non-ok once failed closed
  Holder holder_ GUARDED_BY(mu_) = Holder::kNone;
  bool stopping_ GUARDED_BY(mu_) = false;
  bool urgent_queued_ GUARDED_BY(mu_) = false;   // an urgent entry waits in queue_
  bool writer_started_ GUARDED_BY(mu_) = false;  // the writer has reached its loop
  GroupPacer pacer_ GUARDED_BY(mu_);

  // State of the thread that holds the group being prepared (the writer, or a loop thread in
  // CommitOnLoop; mu_ hands it over through holder_): the chain as prepared, ahead of what is
  // durable (durable_hash_) by the groups being written, handed over and prepared (at most
  // three).
  Digest chain_hash_{};
  CompactMerkle merkle_;
  std::optional<StateDigest> state_digest_;
  // Tags of the states last written under keys whose updates left the replaced tag to the
  // journal (StateUpdate::replaced_known false); nullopt: erased.
  std::unordered_map<std::string, std::optional<StateTag>> found_tags_;
  uint64_t checkpoint_size_ = 0;
  int64_t checkpoint_time_us_ = 0;
  // Debug checks: the last seq whose callback reported success; touched only by the thread
  // writing a group (writing_).
  uint64_t last_done_seq_ = 0;

  Counter* commits_total_ = nullptr;
  Counter* loop_commits_total_ = nullptr;
  Counter* records_total_ = nullptr;
  Counter* failures_total_ = nullptr;
  Histogram* group_size_ = nullptr;
  Histogram* commit_seconds_ = nullptr;
  Gauge* healthy_gauge_ = nullptr;

  std::thread writer_;
  std::thread committer_;
};

}  // namespace verdict::journal
