#include "journal/group_commit.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>

#include "common/event_loop.h"
#include "journal/envelope.h"
#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/index_keys.h"
#include "journal/store.h"

namespace verdict::journal {
namespace {

std::atomic<uint64_t> next_instance_id{1};
// The GroupCommit (instance_id_) whose CommitOnLoop this thread has queued as idle work, or 0.
thread_local uint64_t idle_commit_queued_for = 0;

std::vector<double> GroupSizeBuckets() {
  std::vector<double> b;
  for (double v = 1; v <= 16384; v *= 2) b.push_back(v);
  return b;
}

}  // namespace

struct GroupCommit::Pending {
  uint64_t seq = 0;
  JournalRecord record;                       // kept for idempotency lookups until durable
  std::string payload;                        // canonical payload, encoded by the submitting thread
  std::string txn_key;                        // IndexedTransactionKey
  std::vector<std::string> indexed_accounts;  // IndexedAccounts
  std::vector<StateUpdate> state_updates;
  CommitCallback done;
};

// A group whose writes are built (hashes chained, indexes and state added) and not yet
// committed. Buffers are reused from group to group: a group's writes are megabytes.
struct GroupCommit::PreparedGroup {
  Group group;
  std::unique_ptr<BackendGroup> writes;
  std::vector<Digest> hashes;  // record hash of each entry of `group`
  Digest last_hash{};          // the chain's head once this group is written
  int64_t start_ns = 0;
};

GroupCommit::GroupCommit(const JournalOptions& options, JournalBackend& backend,
                         const CheckpointSigner& signer, const PayloadCipher* cipher,
                         ChainStart start)
    : options_(options),
      clock_(options.clock ? *options.clock : SystemClock::Instance()),
      backend_(backend),
      signer_(signer),
      sealer_(start.sealer),
      cipher_(cipher),
      instance_id_(next_instance_id.fetch_add(1, std::memory_order_relaxed)),
      pacer_(options.group_delay_us, options.group_delay_above_per_s),
      chain_hash_(start.last_hash),
      merkle_(std::move(start.merkle)),
      state_digest_(start.state_digest),
      checkpoint_size_(start.checkpoint_size),
      checkpoint_time_us_(clock_.NowMicros()) {
  {
    MutexLock lock(mu_);
    next_seq_ = start.last_seq + 1;
    durable_seq_ = start.last_seq;
    durable_hash_ = start.last_hash;
  }
  last_done_seq_ = start.last_seq;
  if (MetricsRegistry* m = options_.metrics) {
    commits_total_ = m->GetCounter("verdict_journal_commits_total", "Journal group commits.");
    loop_commits_total_ = m->GetCounter(
        "verdict_journal_loop_commits_total",
        "Journal groups taken by an I/O thread in its loop's idle step (commit_on_io_thread).");
    records_total_ =
        m->GetCounter("verdict_journal_records_total", "Journal records made durable.");
    failures_total_ = m->GetCounter("verdict_journal_failures_total",
                                    "Journal write or sync failures (each fails it closed).");
    group_size_ = m->GetHistogram("verdict_journal_group_size", "Records per group commit.",
                                  GroupSizeBuckets());
    commit_seconds_ =
        m->GetHistogram("verdict_journal_commit_seconds",
                        "Time to write and sync one group commit.", LatencyBucketsSeconds());
    healthy_gauge_ = m->GetGauge("verdict_journal_healthy", "1 while the journal accepts writes.");
    healthy_gauge_->Set(1);
  }
}

void GroupCommit::Start() {
  {
    MutexLock lock(commit_mu_);
    spare_ = std::make_unique<PreparedGroup>();
    spare_->writes = backend_.NewGroup();
  }
  committer_ = std::thread([this] { CommitterLoop(); });
  writer_ = std::thread([this] { WriterLoop(); });
  // Named for profiles and the journal benchmark's per-thread CPU figures.
  pthread_setname_np(committer_.native_handle(), "journal-commit");
  pthread_setname_np(writer_.native_handle(), "journal-writer");
  // Returns only once the writer waits for work: an entry enqueued from an event loop is then
  // left to that loop (commit_on_event_loop) rather than taken by a writer still starting.
  MutexLock lock(mu_);
  while (!writer_started_) started_cv_.Wait(mu_);
}

GroupCommit::~GroupCommit() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  work_cv_.SignalAll();
  not_full_cv_.SignalAll();
  if (writer_.joinable()) writer_.join();
  {
    MutexLock lock(commit_mu_);
    commit_stop_ = true;
  }
  committer_cv_.SignalAll();
  if (committer_.joinable()) committer_.join();
}

Result<std::optional<StateTag>> GroupCommit::ReplacedTag(const StateUpdate& u) {
  const std::optional<StateTag> stored_now = u.erase ? std::nullopt : std::optional(u.tag);
  auto remembered = found_tags_.find(u.key);
  if (u.replaced_known) {
    if (remembered != found_tags_.end()) remembered->second = stored_now;
    return u.replaced_tag;
  }
  std::optional<StateTag> replaced;
  if (remembered != found_tags_.end()) {
    replaced = remembered->second;
    remembered->second = stored_now;
    return replaced;
  }
  // Not met in this run: the store holds what earlier runs wrote (every group prepared before
  // this one that touched the key left it in found_tags_).
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> stored, backend_.GetState(u.key));
  if (stored) replaced = sealer_->Tag(u.key, *stored);
  found_tags_.emplace(u.key, stored_now);
  return replaced;
}

Result<uint64_t> GroupCommit::Enqueue(JournalEntry entry, CommitCallback done) {
  VERDICT_RETURN_IF_ERROR(ValidateRecord(entry.record));
  auto p = std::make_shared<Pending>();
  // The journal, not the caller, vouches that input_sha256 is the hash of canonical_input.
  entry.record.input_sha256 = Sha256(entry.record.canonical_input);
  EncodeRecordPayload(entry.record, p->payload);
  // Decisions and history records both name a transaction: indexed by it, and never twice.
  const bool is_transaction = entry.record.kind != RecordKind::kAdminEvent;
  if (is_transaction) {
    // Keyed hashes when encrypting: computed here, on the submitting thread, not the writer.
    p->txn_key =
        IndexedTransactionKey(cipher_, entry.record.tenant, entry.record.decision.transaction_id);
  }
  p->indexed_accounts = IndexedAccounts(cipher_, entry.record);
  p->record = std::move(entry.record);
  p->state_updates = std::move(entry.state_updates);
  if (sealer_) {
    // On the submitting thread, not the writer: a caller may leave the tag to the journal.
    for (StateUpdate& u : p->state_updates) {
      if (!u.erase && u.tag == StateTag{}) u.tag = sealer_->Tag(u.key, u.value);
    }
  }
  p->done = std::move(done);
  const bool entry_urgent = entry.urgent;

  // The store lookup runs outside the lock; committed_gen_ tells whether an entry left the
  // pending map meanwhile (then it is in the store and the lookup is repeated under the lock).
  uint64_t gen_before = 0;
  const bool check_duplicates = is_transaction && options_.reject_duplicate_transactions;
  const auto already_journaled = [&] {
    return Status(StatusCode::kAlreadyExists, "transaction already journaled", "transaction_id");
  };
  if (check_duplicates) {
    {
      MutexLock lock(mu_);
      gen_before = committed_gen_;
    }
    VERDICT_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, backend_.FindByTransaction(p->txn_key));
    if (seq) return already_journaled();
  }

  MutexLock lock(mu_);
  if (queue_.size() >= options_.max_pending) {
    // Room comes only from a commit, and not from this thread's idle step while it waits here.
    work_cv_.Signal();
  }
  while (queue_.size() >= options_.max_pending && failure_.ok() && !stopping_) {
    not_full_cv_.Wait(mu_);
  }
  if (!failure_.ok()) return failure_;
  if (stopping_) return Unavailable("journal is closing");
  if (check_duplicates) {
    if (pending_txn_.contains(p->txn_key)) {
      return Status(StatusCode::kAlreadyExists, "transaction already pending", "transaction_id");
    }
    if (committed_gen_ != gen_before) {
      VERDICT_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, backend_.FindByTransaction(p->txn_key));
      if (seq) return already_journaled();
    }
  }
  p->seq = next_seq_++;
  p->record.seq = p->seq;
  if (is_transaction) {
    auto [it, inserted] = pending_txn_.try_emplace(p->txn_key, p);
    if (!inserted) {  // duplicates allowed: the newer entry owns the key's bytes from now on
      pending_txn_.erase(it);
      pending_txn_.emplace(p->txn_key, p);
    }
  }
  queue_.push_back(p);
  // On a loop thread with no group held elsewhere, the thread commits this turn's entries
  // itself once the turn has run (see commit_on_event_loop); its idle step is queued once.
  const bool group_held = holder_ != Holder::kNone;
  bool commit_on_loop = false;
  bool post_commit = false;
  if (options_.commit_on_event_loop && EventLoop::Current() != nullptr && !group_held) {
    if (idle_commit_queued_for == instance_id_) {
      commit_on_loop = true;
    } else if (pacer_.DelayUs(1, kPipelineMinQueued, clock_.MonotonicNanos()) == 0) {
      commit_on_loop = post_commit = true;
      idle_commit_queued_for = instance_id_;
    }
  }
  // An entry no loop holds for its idle step wakes an idle writer even behind others queued for
  // another thread's step: it would otherwise wait for the end of that thread's turn.
  const bool idle_writer_must_take = options_.commit_on_event_loop && !group_held;
  bool wake_writer =
      !commit_on_loop && (queue_.size() == 1 || queue_.size() == kPipelineMinQueued ||
                          (entry_urgent && !urgent_queued_) || idle_writer_must_take);
  urgent_queued_ = urgent_queued_ || entry_urgent;
  lock.Unlock();
  if (post_commit) EventLoop::PostWhenIdle([this] { CommitOnLoop(); });
  if (wake_writer) work_cv_.Signal();
  return p->seq;
}

void GroupCommit::WhenDurable(uint64_t seq, std::function<void(const Status&)> done) {
  Status now;
  {
    MutexLock lock(mu_);
    if (!failure_.ok()) {
      now = failure_;
    } else if (seq > durable_seq_) {
      waiters_.emplace(seq, std::move(done));
      return;
    }
  }
  done(now);
}

void GroupCommit::HandLoopCommitToWriter() {
  bool queued = false;
  {
    MutexLock lock(mu_);
    queued = !queue_.empty();
  }
  // The writer takes what is queued; the idle step, when it runs, finds it gone or held.
  if (queued) work_cv_.Signal();
}

bool GroupCommit::healthy() const {
  MutexLock lock(mu_);
  return failure_.ok();
}

Status GroupCommit::health() const {
  MutexLock lock(mu_);
  return failure_;
}

uint64_t GroupCommit::durable_sequence() const {
  MutexLock lock(mu_);
  return durable_seq_;
}

uint64_t GroupCommit::backlog() const {
  MutexLock lock(mu_);
  // Failed closed, nothing is waiting any more: what was queued has been refused.
  if (!failure_.ok()) return 0;
  return next_seq_ - 1 - durable_seq_;
}

Digest GroupCommit::last_hash() const {
  MutexLock lock(mu_);
  return durable_hash_;
}

bool GroupCommit::IdleForTesting() const {
  MutexLock lock(mu_);
  return holder_ == Holder::kNone && queue_.empty();
}

uint64_t GroupCommit::last_enqueued() const {
  MutexLock lock(mu_);
  return next_seq_ - 1;
}

std::optional<JournalRecord> GroupCommit::FindPending(std::string_view txn_key) const {
  MutexLock lock(mu_);
  auto it = pending_txn_.find(txn_key);
  if (it == pending_txn_.end()) return std::nullopt;
  return it->second->record;
}

void GroupCommit::WriterTakesLocked() {
  assert(holder_ == Holder::kNone || holder_ == Holder::kCommitter);
  holder_ = holder_ == Holder::kCommitter ? Holder::kCommitterAndWriter : Holder::kWriter;
}

void GroupCommit::WriterReleasesLocked() {
  if (holder_ == Holder::kWriter) holder_ = Holder::kNone;
  if (holder_ == Holder::kCommitterAndWriter) holder_ = Holder::kCommitter;
}

void GroupCommit::LoopTakesLocked() {
  assert(holder_ == Holder::kNone);
  holder_ = Holder::kLoop;
}

void GroupCommit::LoopReleasesLocked() {
  assert(holder_ == Holder::kLoop);
  holder_ = Holder::kNone;
}

void GroupCommit::HandToCommitterLocked() {
  assert(holder_ == Holder::kWriter || holder_ == Holder::kCommitterAndWriter);
  holder_ = Holder::kCommitter;
}

void GroupCommit::CommitterReleasesLocked() {
  assert(CommitterHoldsLocked());
  holder_ = holder_ == Holder::kCommitterAndWriter ? Holder::kWriter : Holder::kNone;
}

bool GroupCommit::CheckpointDueByTime() const {
  return merkle_.size() > checkpoint_size_ &&
         clock_.NowMicros() - checkpoint_time_us_ >= options_.checkpoint_interval_us;
}

void GroupCommit::TakeGroupLocked(Group& group) {
  mu_.AssertHeld();
  urgent_queued_ = false;
  size_t n = std::min(queue_.size(), options_.max_group_size);
  pacer_.OnTake(n, clock_.MonotonicNanos());
  group.assign(std::make_move_iterator(queue_.begin()),
               std::make_move_iterator(queue_.begin() + static_cast<ptrdiff_t>(n)));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(n));
}

std::unique_ptr<GroupCommit::PreparedGroup> GroupCommit::TakeSpare() {
  {
    MutexLock lock(commit_mu_);
    if (spare_) return std::move(spare_);
  }
  auto prepared = std::make_unique<PreparedGroup>();
  prepared->writes = backend_.NewGroup();
  return prepared;
}

void GroupCommit::ReturnSpare(std::unique_ptr<PreparedGroup> prepared) {
  MutexLock lock(commit_mu_);
  if (!spare_) spare_ = std::move(prepared);  // keep its buffers for the next group
}

void GroupCommit::CommitOnLoop() {
  Group group;
  {
    idle_commit_queued_for = 0;
    MutexLock lock(mu_);
    if (queue_.empty()) return;
    if (!failure_.ok() || stopping_ || holder_ != Holder::kNone) {
      lock.Unlock();
      work_cv_.Signal();  // it is the writer's to take
      return;
    }
    TakeGroupLocked(group);
    LoopTakesLocked();
  }
  if (loop_commits_total_) loop_commits_total_->Increment();
  not_full_cv_.SignalAll();
  std::unique_ptr<PreparedGroup> prepared = TakeSpare();
  if (PrepareGroup(group, *prepared)) {
    CommitHere(std::move(prepared), Holder::kLoop);
  } else {
    ReturnSpare(std::move(prepared));
  }
  bool writer_waits = false;
  {
    MutexLock lock(mu_);
    LoopReleasesLocked();
    // Entries enqueued meanwhile, or a stop, may have the writer waiting for this group; an
    // idle writer is not woken for nothing (a needless wake-up costs two context switches).
    writer_waits = !queue_.empty() || stopping_;
  }
  if (writer_waits) work_cv_.Signal();
}

bool GroupCommit::WriterTakeGroup(Group& group) {
  MutexLock lock(mu_);
  WriterReleasesLocked();
  if (!writer_started_) {
    // Set under the lock the writer keeps into its wait for work, so that Open's caller
    // cannot enqueue before the writer waits.
    writer_started_ = true;
    started_cv_.SignalAll();
  }
  // While the committer writes a group, a short queue waits for it and then goes whole into the
  // next group, as with one thread: a group prepared early would close before the entries that
  // arrive during the sync, which would wait for one more sync. Only a long queue is worth
  // preparing alongside. A loop thread's group first: while it prepares it, the chain and
  // checkpoint state (merkle_, checkpoint_size_) are that thread's.
  while (holder_ == Holder::kLoop ||
         (queue_.empty() && !stopping_ && !(failure_.ok() && CheckpointDueByTime())) ||
         (CommitterHoldsLocked() && queue_.size() < kPipelineMinQueued && !stopping_ &&
          failure_.ok())) {
    // Poll the clock while a time-based checkpoint is outstanding (the clock may be manual).
    if (holder_ != Holder::kLoop && failure_.ok() && merkle_.size() > checkpoint_size_) {
      work_cv_.WaitFor(mu_, std::chrono::milliseconds(50));
    } else {
      work_cv_.Wait(mu_);
    }
  }
  WriterTakesLocked();  // from here: a loop's CommitOnLoop leaves the queue to this thread
  // At a high arrival rate, a short wait lets one sync serve more entries; an urgent (realtime)
  // entry ends it.
  const int64_t delay_us =
      urgent_queued_ ? 0
                     : pacer_.DelayUs(queue_.size(), kPipelineMinQueued, clock_.MonotonicNanos());
  if (delay_us > 0 && !stopping_) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(delay_us);
    while (!stopping_ && failure_.ok() && !urgent_queued_ && queue_.size() < kPipelineMinQueued) {
      if (!work_cv_.WaitUntil(mu_, deadline)) break;
    }
  }
  TakeGroupLocked(group);
  return stopping_ && queue_.empty();
}

void GroupCommit::WriterLoop() {
  Group group;
  while (true) {
    const bool stop = WriterTakeGroup(group);
    not_full_cv_.SignalAll();
    std::unique_ptr<PreparedGroup> prepared = TakeSpare();
    if (PrepareGroup(group, *prepared)) {
      HandOver(std::move(prepared), stop);
    } else {
      ReturnSpare(std::move(prepared));
    }
    group.clear();
    if (stop) break;
  }
  MutexLock lock(mu_);
  WriterReleasesLocked();
}

void GroupCommit::HandOver(std::unique_ptr<PreparedGroup> prepared, bool stop) {
  bool more_queued = false;
  {
    MutexLock lock(mu_);
    more_queued = !queue_.empty();
  }
  MutexLock lock(commit_mu_);
  if (more_queued && !stop) {
    // Entries wait: the committer writes and syncs this group while this thread prepares
    // the next one.
    while (to_commit_ != nullptr) writer_cv_.Wait(commit_mu_);
    to_commit_ = std::move(prepared);
    SetCommitterBusy(true);
    lock.Unlock();
    committer_cv_.Signal();
    return;
  }
  // Nothing else waits: write it here, after the committer's group, and save a hand-off.
  lock.Unlock();
  CommitHere(std::move(prepared), Holder::kWriter);
}

void GroupCommit::CommitHere(std::unique_ptr<PreparedGroup> prepared, Holder who) {
  MutexLock lock(commit_mu_);
  while (to_commit_ != nullptr || writing_ != Holder::kNone) writer_cv_.Wait(commit_mu_);
  writing_ = who;
  lock.Unlock();
  CommitPrepared(*prepared);
  lock.Lock();
  assert(writing_ == who);
  writing_ = Holder::kNone;
  spare_ = std::move(prepared);
  // No signal: only the thread holding the next group waits for writing_ to clear, and no
  // other thread takes one while this one holds a group.
}

void GroupCommit::CommitterLoop() {
  MutexLock lock(commit_mu_);
  while (true) {
    while (to_commit_ == nullptr && !commit_stop_) committer_cv_.Wait(commit_mu_);
    if (to_commit_ == nullptr) return;
    std::unique_ptr<PreparedGroup> prepared = std::move(to_commit_);
    assert(writing_ == Holder::kNone);
    writing_ = Holder::kCommitter;
    lock.Unlock();
    writer_cv_.Signal();  // the writer may hand over its next group
    CommitPrepared(*prepared);
    lock.Lock();
    writing_ = Holder::kNone;
    spare_ = std::move(prepared);
    if (to_commit_ == nullptr) SetCommitterBusy(false);
    writer_cv_.Signal();
  }
}

void GroupCommit::SetCommitterBusy(bool busy) {
  {
    MutexLock lock(mu_);
    if (busy) {
      HandToCommitterLocked();
    } else {
      CommitterReleasesLocked();
    }
  }
  if (!busy) work_cv_.Signal();
}

bool GroupCommit::AddRecords(Group& group, PreparedGroup& out, Digest& prev,
                             CompactMerkle& merkle) {
  BackendGroup& writes = *out.writes;
  std::string value;
  std::string encrypted;
  for (auto& p : group) {
    uint8_t flags = 0;
    std::string_view payload = p->payload;
    if (cipher_) {
      Result<std::string> sealed = cipher_->Encrypt(p->seq, p->payload);
      if (!sealed.ok()) {
        FailClosed(sealed.status(), group);
        return false;
      }
      encrypted = std::move(sealed).value();
      payload = encrypted;
      flags |= kEntryFlagEncrypted;
    }
    value.clear();
    Digest hash = EncodeEntry(p->seq, flags, prev, payload, value);
    writes.AddRecord(p->seq, value, p->record, p->txn_key, p->indexed_accounts);
    for (const StateUpdate& u : p->state_updates) writes.AddStateUpdate(u);
    merkle.AppendLeafHash(MerkleLeafHash(AsBytes(hash)));
    out.hashes.push_back(hash);
    prev = hash;
  }
  return true;
}

bool GroupCommit::PrepareGroup(Group& group, PreparedGroup& out) {
  bool closing = false;
  Status failure;
  {
    MutexLock lock(mu_);
    // The chain state below is this thread's: it holds the group being prepared.
    assert(holder_ == Holder::kWriter || holder_ == Holder::kCommitterAndWriter ||
           holder_ == Holder::kLoop);
    failure = failure_;
    closing = stopping_ && queue_.empty();
  }
  if (!failure.ok()) {  // failed closed earlier: nothing more is written
    for (auto& p : group) p->done(failure);
    return false;
  }
  if (group.empty() && !closing && !CheckpointDueByTime()) return false;
  // Sequence numbers are handed out in queue order, so a group is a run without gaps that
  // continues the chain as prepared.
  assert(group.empty() || group.front()->seq == merkle_.size() + 1);
  assert(group.empty() || group.back()->seq == group.front()->seq + group.size() - 1);

  out.start_ns = clock_.MonotonicNanos();
  out.writes->Clear();  // keeps its buffer: fresh pages cost faults
  Digest prev = chain_hash_;
  CompactMerkle merkle = merkle_;
  out.hashes.clear();
  out.hashes.reserve(group.size());
  if (!AddRecords(group, out, prev, merkle)) return false;
  std::optional<StateDigest> state_digest = state_digest_;
  if (state_digest) {
    for (const auto& p : group) {
      for (const StateUpdate& u : p->state_updates) {
        Result<std::optional<StateTag>> replaced = ReplacedTag(u);
        if (!replaced.ok()) {
          FailClosed(replaced.status(), group);
          return false;
        }
        if (*replaced) state_digest->Subtract(**replaced);
        if (!u.erase) state_digest->Add(u.tag);
      }
    }
  }

  std::optional<Checkpoint> checkpoint;
  bool due =
      merkle.size() - checkpoint_size_ >= options_.checkpoint_every_records ||
      (merkle.size() > checkpoint_size_ &&
       (closing || clock_.NowMicros() - checkpoint_time_us_ >= options_.checkpoint_interval_us));
  if (due) {
    checkpoint.emplace();
    checkpoint->tree_size = merkle.size();
    checkpoint->root = merkle.Root();
    checkpoint->last_record_hash = prev;
    checkpoint->time_us = clock_.NowMicros();
    Status signed_ok = signer_.Sign(*checkpoint);
    if (!signed_ok.ok()) {
      FailClosed(signed_ok, group);
      return false;
    }
    out.writes->AddCheckpoint(*checkpoint);
  }
  if (!group.empty()) {
    out.writes->SetHead(JournalHead{merkle.size(), prev, merkle, state_digest});
  }

  // The chain advances now, before the write: the next group is prepared on top of this one
  // while it is written. Should the write fail, the journal fails closed and writes nothing
  // more, so no record ever follows a hash that is not stored.
  chain_hash_ = prev;
  merkle_ = std::move(merkle);
  state_digest_ = state_digest;
  if (checkpoint) {
    checkpoint_size_ = checkpoint->tree_size;
    checkpoint_time_us_ = checkpoint->time_us;
  }
  out.last_hash = prev;
  out.group = std::move(group);
  return true;
}

void GroupCommit::CommitPrepared(PreparedGroup& prepared) {
  Group& group = prepared.group;
  Status failure;
  {
    MutexLock lock(mu_);
    failure = failure_;
    // Groups commit in sequence order without gaps: this one continues what is durable.
    assert(!failure.ok() || group.empty() || group.front()->seq == durable_seq_ + 1);
  }
  if (!failure.ok()) {  // the group before this one failed: this one is refused, not written
    for (auto& p : group) p->done(failure);
    group.clear();
    return;
  }
  Status written = backend_.CommitGroup(*prepared.writes, group.empty() ? 1 : group.front()->seq,
                                        group.empty() ? 0 : group.back()->seq);
  if (!written.ok()) {
    FailClosed(written, group);
    group.clear();
    return;
  }
  if (group.empty()) return;

  std::vector<std::function<void(const Status&)>> ready;
  MarkDurable(prepared, ready);
  double seconds = static_cast<double>(clock_.MonotonicNanos() - prepared.start_ns) / 1e9;
  if (commits_total_) commits_total_->Increment();
  if (records_total_) records_total_->Increment(group.size());
  if (group_size_) group_size_->Observe(static_cast<double>(group.size()));
  if (commit_seconds_) commit_seconds_->Observe(seconds);
  for (size_t i = 0; i < group.size(); ++i) {
    // Callbacks run in sequence order (the case store's high-water mark relies on it).
    assert(group[i]->seq == last_done_seq_ + 1);
    last_done_seq_ = group[i]->seq;
    group[i]->done(CommitInfo{group[i]->seq, prepared.hashes[i]});
  }
  for (auto& w : ready) w(Status::Ok());
  group.clear();
}

void GroupCommit::MarkDurable(const PreparedGroup& prepared,
                              std::vector<std::function<void(const Status&)>>& ready) {
  const Group& group = prepared.group;
  MutexLock lock(mu_);
  // The durable sequence only moves forward.
  assert(group.back()->seq > durable_seq_);
  durable_seq_ = group.back()->seq;
  durable_hash_ = prepared.last_hash;
  for (auto& p : group) {
    auto it = pending_txn_.find(p->txn_key);
    if (it != pending_txn_.end() && it->second == p) pending_txn_.erase(it);
  }
  ++committed_gen_;
  auto end = waiters_.upper_bound(durable_seq_);
  for (auto it = waiters_.begin(); it != end; ++it) ready.push_back(std::move(it->second));
  waiters_.erase(waiters_.begin(), end);
}

void GroupCommit::Refuse(const Status& cause) {
  Group none;
  FailClosed(cause, none);
}

void GroupCommit::FailClosed(const Status& cause, Group& group) {
  Status failure = Unavailable("journal failed closed: " + cause.message());
  spdlog::error("journal: {}; no further decisions will be acknowledged until a restart",
                failure.message());
  std::deque<std::shared_ptr<Pending>> queued;
  std::multimap<uint64_t, std::function<void(const Status&)>> waiters;
  {
    MutexLock lock(mu_);
    failure_ = failure;
    queued.swap(queue_);
    waiters.swap(waiters_);
    pending_txn_.clear();
    ++committed_gen_;
  }
  not_full_cv_.SignalAll();
  if (failures_total_) failures_total_->Increment();
  if (healthy_gauge_) healthy_gauge_->Set(0);
  for (auto& p : group) p->done(failure);
  for (auto& p : queued) p->done(failure);
  for (auto& [seq, w] : waiters) w(failure);
}

}  // namespace verdict::journal
