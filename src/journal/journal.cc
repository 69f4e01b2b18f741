#include "journal/journal.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>

#include "common/event_loop.h"
#include "journal/background_priority.h"
#include "journal/bytes.h"
#include "journal/group_batch.h"
#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/stored_record.h"

namespace verdict::journal {
namespace {

std::atomic<uint64_t> next_instance_id{1};
// The journal (instance_id_) whose CommitOnLoop this thread has queued as idle work, or 0.
thread_local uint64_t idle_commit_queued_for = 0;

}  // namespace

struct Journal::Pending {
  uint64_t seq = 0;
  JournalRecord record;  // kept for idempotency lookups until durable
  std::string payload;   // canonical payload, encoded by the submitting thread
  std::string txn_key;
  std::vector<StateUpdate> state_updates;
  CommitCallback done;
};

// A group whose WriteBatch is built (hashes chained, indexes and state added) and not yet
// written. Buffers are reused from group to group: a group's batch is megabytes.
struct Journal::PreparedGroup {
  std::vector<std::shared_ptr<Pending>> group;
  rocksdb::WriteBatch batch;
  std::vector<Digest> hashes;  // record hash of each entry of `group`
  Digest last_hash{};          // the chain's head once this group is written
  int64_t start_ns = 0;
};

namespace {

// Bytes free to an unprivileged writer on the file system holding `dir`; none if unknown.
std::optional<uint64_t> FreeBytesIn(const std::string& dir) {
  struct statvfs fs {};
  if (statvfs(dir.c_str(), &fs) != 0) return std::nullopt;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

std::vector<double> GroupSizeBuckets() {
  std::vector<double> b;
  for (double v = 1; v <= 16384; v *= 2) b.push_back(v);
  return b;
}

std::string_view DecisionIdKey(const Uuid& id) {
  return {reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size()};
}

}  // namespace

Journal::Journal(const JournalOptions& options)
    : options_(options),
      clock_(options.clock ? *options.clock : SystemClock::Instance()),
      pacer_(options.group_delay_us, options.group_delay_above_per_s),
      instance_id_(next_instance_id.fetch_add(1, std::memory_order_relaxed)) {}

Result<std::unique_ptr<Journal>> Journal::Open(const JournalOptions& options) {
  if (options.data_dir.empty()) return InvalidArgument("journal data_dir is empty", "data_dir");
  if (options.checkpoint_every_records == 0 || options.max_group_size == 0 ||
      options.max_pending == 0) {
    return InvalidArgument(
        "journal checkpoint_every_records, max_group_size and max_pending "
        "must be positive");
  }
  auto journal = std::unique_ptr<Journal>(new Journal(options));
  VERDICT_RETURN_IF_ERROR(journal->Recover());
  journal->spare_ = std::make_unique<PreparedGroup>();
  journal->committer_ = std::thread([j = journal.get()] { j->CommitterLoop(); });
  journal->writer_ = std::thread([j = journal.get()] { j->WriterLoop(); });
  // Named for profiles and the journal benchmark's per-thread CPU figures.
  pthread_setname_np(journal->committer_.native_handle(), "journal-commit");
  pthread_setname_np(journal->writer_.native_handle(), "journal-writer");
  {
    // Returned only once the writer waits for work: an entry enqueued from an event loop is
    // then left to that loop (commit_on_event_loop) rather than taken by a writer still starting.
    std::unique_lock lock(journal->mu_);
    journal->started_cv_.wait(lock, [&] { return journal->writer_started_; });
  }
  return journal;
}

std::shared_ptr<BackgroundPriority> Journal::MakeBackgroundPriority() {
  if (options_.background_idle_us <= 0) return nullptr;
  if (!BackgroundPriority::Supported()) {
    spdlog::warn(
        "journal: flushes and compactions run at normal priority: this process may not raise a "
        "thread out of SCHED_IDLE again (it needs CAP_SYS_NICE or RLIMIT_NICE of 20, e.g. "
        "systemd's LimitNICE=-20)");
    return nullptr;
  }
  spdlog::info("journal: flushes and compactions at idle priority, raised after {} ms",
               options_.background_idle_us / 1000);
  Counter* boosts = nullptr;
  if (MetricsRegistry* m = options_.metrics) {
    boosts = m->GetCounter("verdict_journal_background_boosts_total",
                           "Store flushes and compactions raised from idle to normal priority "
                           "(after journal.background_idle_ms, on a sealed memtable, or on a "
                           "write stall).");
  }
  // Real time, also under a test's manual clock: the allowance is scheduling time on this core.
  return std::make_shared<BackgroundPriority>(options_.background_idle_us, &SystemClock::Instance(),
                                              boosts);
}

Status Journal::Recover() {
  int64_t start_ns = clock_.MonotonicNanos();
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
    wal_sync_seconds_ = m->GetHistogram(
        "verdict_journal_wal_sync_seconds",
        "Time of each background sync of the store's WAL after a commit log pass (no commit "
        "waits for it unless it is still running when the log next changes halves).",
        LatencyBucketsSeconds());
    wal_sync_waits_total_ = m->GetCounter(
        "verdict_journal_wal_sync_waits_total",
        "Commit log half changes that found the WAL sync over the pass before still running "
        "(and waited for it).");
    recovery_gauge_ = m->GetGauge("verdict_journal_recovery_seconds",
                                  "Time the last start spent recovering from the journal.");
    healthy_gauge_ = m->GetGauge("verdict_journal_healthy", "1 while the journal accepts writes.");
  }

  StoreOptions store_options;
  store_options.data_dir = options_.data_dir;
  store_options.file_system = options_.file_system;
  store_options.background_priority = MakeBackgroundPriority();
  VERDICT_ASSIGN_OR_RETURN(store_, JournalStore::Open(store_options));
  VERDICT_ASSIGN_OR_RETURN(signer_, CheckpointSigner::LoadOrCreate(options_.data_dir));
  // Also when this run has no log: the last one may have had one.
  VERDICT_RETURN_IF_ERROR(ReplayCommitLog());

  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> head_bytes,
                           store_->Get(Cf::kMeta, kMetaHeadKey));
  JournalHead head;
  if (head_bytes) {
    VERDICT_ASSIGN_OR_RETURN(head, DecodeHead(*head_bytes));
  }
  // The head and the records are written in one batch, so they agree unless the store was
  // altered; refuse to extend a chain whose end we cannot vouch for.
  if (head.last_seq > 0) {
    VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> last,
                             store_->Get(Cf::kRecords, SeqKey(head.last_seq)));
    if (!last) {
      return Status(StatusCode::kFailedPrecondition,
                    "journal head names record " + std::to_string(head.last_seq) +
                        ", which is missing; run `verdict audit verify`");
    }
    Result<EntryView> entry = DecodeEntry(*last);
    if (!entry.ok() || entry->record_hash != head.last_hash || entry->seq != head.last_seq) {
      return Status(StatusCode::kFailedPrecondition,
                    "journal head does not match the last record; run `verdict audit verify`");
    }
  }
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> beyond,
                           store_->Get(Cf::kRecords, SeqKey(head.last_seq + 1)));
  if (beyond) {
    return Status(StatusCode::kFailedPrecondition,
                  "journal has records beyond its head; run `verdict audit verify`");
  }
  next_seq_ = head.last_seq + 1;
  durable_seq_ = head.last_seq;
  durable_hash_ = head.last_hash;
  chain_hash_ = head.last_hash;
  merkle_ = head.merkle;

  {
    std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kCheckpoints);
    it->SeekToLast();
    if (it->Valid()) {
      Result<Checkpoint> cp = DecodeCheckpoint(it->value().ToStringView());
      if (!cp.ok()) return Status(StatusCode::kFailedPrecondition, "latest checkpoint is corrupt");
      checkpoint_size_ = cp->tree_size;
    }
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading checkpoints"));
  }
  checkpoint_time_us_ = clock_.NowMicros();

  if (!options_.kek_file.empty()) {
    VERDICT_ASSIGN_OR_RETURN(cipher_, PayloadCipher::FromKekFile(options_.kek_file));
    uint32_t max_id = 0;
    VERDICT_RETURN_IF_ERROR(LoadDataKeys(*store_, *cipher_, &max_id));
    // A fresh data key per open keeps (key, nonce = seq) pairs unique even if a crash lost the
    // tail of a previous run whose sequence numbers are now reused.
    VERDICT_ASSIGN_OR_RETURN(std::string wrapped, cipher_->NewDataKey(max_id + 1));
    std::string key(kMetaDekPrefix);
    ByteWriter(key).U32(max_id + 1);
    rocksdb::WriteBatch batch;
    batch.Put(store_->handle(Cf::kMeta), key, wrapped);
    VERDICT_RETURN_IF_ERROR(store_->Write(batch, /*sync=*/true));
  }

  if (options_.on_recovered_state) {
    VERDICT_RETURN_IF_ERROR(ForEachAccountState(options_.on_recovered_state));
  }

  recovery_seconds_ = static_cast<double>(clock_.MonotonicNanos() - start_ns) / 1e9;
  if (recovery_gauge_) recovery_gauge_->Set(recovery_seconds_);
  if (healthy_gauge_) healthy_gauge_->Set(1);
  spdlog::info("journal: recovered {} records from {} in {:.3f} s; checkpoint key {}",
               head.last_seq, options_.data_dir, recovery_seconds_,
               ToHex(std::string_view(reinterpret_cast<const char*>(signer_->public_key().data()),
                                      signer_->public_key().size())));
  if (options_.durability == Durability::kAsync) {
    spdlog::warn(
        "journal: durability = \"async\": decisions are acknowledged BEFORE they are on "
        "disk and can be lost on power failure; use only for benchmarks");
  }
  return Status::Ok();
}

Journal::~Journal() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  not_full_cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  {
    std::lock_guard lock(commit_mu_);
    commit_stop_ = true;
  }
  committer_cv_.notify_all();
  if (committer_.joinable()) committer_.join();
}

Result<bool> Journal::TransactionCommitted(const std::string& txn_key) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> seq,
                           store_->Get(Cf::kByTransaction, txn_key));
  return seq.has_value();
}

Result<uint64_t> Journal::Enqueue(JournalEntry entry, CommitCallback done) {
  VERDICT_RETURN_IF_ERROR(ValidateRecord(entry.record));
  auto p = std::make_shared<Pending>();
  // The journal, not the caller, vouches that input_sha256 is the hash of canonical_input.
  entry.record.input_sha256 = Sha256(entry.record.canonical_input);
  EncodeRecordPayload(entry.record, p->payload);
  const bool is_decision = entry.record.kind == RecordKind::kDecision;
  if (is_decision) {
    p->txn_key = TransactionKey(entry.record.tenant, entry.record.decision.transaction_id);
  }
  p->record = std::move(entry.record);
  p->state_updates = std::move(entry.state_updates);
  p->done = std::move(done);
  const bool entry_urgent = entry.urgent;

  // The store lookup runs outside the lock; committed_gen_ tells whether an entry left the
  // pending map meanwhile (then it is in the store and the lookup is repeated under the lock).
  uint64_t gen_before = 0;
  const bool check_duplicates = is_decision && options_.reject_duplicate_transactions;
  if (check_duplicates) {
    {
      std::lock_guard lock(mu_);
      gen_before = committed_gen_;
    }
    VERDICT_ASSIGN_OR_RETURN(bool exists, TransactionCommitted(p->txn_key));
    if (exists) {
      return Status(StatusCode::kAlreadyExists, "transaction already journaled", "transaction_id");
    }
  }

  std::unique_lock lock(mu_);
  if (queue_.size() >= options_.max_pending) {
    // Room comes only from a commit, and not from this thread's idle step while it waits here.
    work_cv_.notify_one();
  }
  not_full_cv_.wait(
      lock, [&] { return queue_.size() < options_.max_pending || !failure_.ok() || stopping_; });
  if (!failure_.ok()) return failure_;
  if (stopping_) return Unavailable("journal is closing");
  if (check_duplicates) {
    if (pending_txn_.contains(p->txn_key)) {
      return Status(StatusCode::kAlreadyExists, "transaction already pending", "transaction_id");
    }
    if (committed_gen_ != gen_before) {
      VERDICT_ASSIGN_OR_RETURN(bool exists, TransactionCommitted(p->txn_key));
      if (exists) {
        return Status(StatusCode::kAlreadyExists, "transaction already journaled",
                      "transaction_id");
      }
    }
  }
  p->seq = next_seq_++;
  p->record.seq = p->seq;
  if (is_decision) {
    auto [it, inserted] = pending_txn_.try_emplace(p->txn_key, p);
    if (!inserted) {  // duplicates allowed: the newer entry owns the key's bytes from now on
      pending_txn_.erase(it);
      pending_txn_.emplace(p->txn_key, p);
    }
  }
  queue_.push_back(p);
  // On a loop thread with no group held elsewhere, the thread commits this turn's entries
  // itself once the turn has run (see commit_on_event_loop); its idle step is queued once.
  const bool group_held = GroupHeldLocked();
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
  lock.unlock();
  if (post_commit) EventLoop::PostWhenIdle([this] { CommitOnLoop(); });
  if (wake_writer) work_cv_.notify_one();
  return p->seq;
}

void Journal::WhenDurable(uint64_t seq, std::function<void(const Status&)> done) {
  Status now;
  {
    std::lock_guard lock(mu_);
    if (!failure_.ok()) {
      now = failure_;
    } else if (seq > durable_seq_) {
      waiters_.emplace(seq, std::move(done));
      return;
    }
  }
  done(now);
}

void Journal::HandLoopCommitToWriter() {
  bool queued = false;
  {
    std::lock_guard lock(mu_);
    queued = !queue_.empty();
  }
  // The writer takes what is queued; the idle step, when it runs, finds it gone or held.
  if (queued) work_cv_.notify_one();
}

Status Journal::Flush() {
  uint64_t target = 0;
  {
    std::lock_guard lock(mu_);
    target = next_seq_ - 1;
  }
  HandLoopCommitToWriter();
  std::promise<Status> promise;
  std::future<Status> future = promise.get_future();
  WhenDurable(target, [&promise](const Status& s) { promise.set_value(s); });
  return future.get();
}

bool Journal::healthy() const {
  std::lock_guard lock(mu_);
  return failure_.ok();
}

Status Journal::health() const {
  std::lock_guard lock(mu_);
  return failure_;
}

uint64_t Journal::durable_sequence() const {
  std::lock_guard lock(mu_);
  return durable_seq_;
}

uint64_t Journal::backlog() const {
  std::lock_guard lock(mu_);
  // Failed closed, nothing is waiting any more: what was queued has been refused.
  if (!failure_.ok()) return 0;
  return next_seq_ - 1 - durable_seq_;
}

Digest Journal::last_hash() const {
  std::lock_guard lock(mu_);
  return durable_hash_;
}

bool Journal::IdleForTesting() const {
  std::lock_guard lock(mu_);
  return !GroupHeldLocked() && queue_.empty();
}

bool Journal::CheckpointDueByTime() const {
  return merkle_.size() > checkpoint_size_ &&
         clock_.NowMicros() - checkpoint_time_us_ >= options_.checkpoint_interval_us;
}

void Journal::TakeGroupLocked(std::vector<std::shared_ptr<Pending>>& group) {
  urgent_queued_ = false;
  size_t n = std::min(queue_.size(), options_.max_group_size);
  pacer_.OnTake(n, clock_.MonotonicNanos());
  group.assign(std::make_move_iterator(queue_.begin()),
               std::make_move_iterator(queue_.begin() + static_cast<ptrdiff_t>(n)));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(n));
}

std::unique_ptr<Journal::PreparedGroup> Journal::TakeSpare() {
  std::lock_guard lock(commit_mu_);
  return spare_ ? std::move(spare_) : std::make_unique<PreparedGroup>();
}

void Journal::ReturnSpare(std::unique_ptr<PreparedGroup> prepared) {
  std::lock_guard lock(commit_mu_);
  if (!spare_) spare_ = std::move(prepared);  // keep its buffers for the next group
}

bool Journal::GroupHeldLocked() const {
  return writer_has_group_ || committer_busy_ || loop_has_group_;
}

void Journal::CommitOnLoop() {
  std::vector<std::shared_ptr<Pending>> group;
  {
    idle_commit_queued_for = 0;
    std::unique_lock lock(mu_);
    if (queue_.empty()) return;
    if (!failure_.ok() || stopping_ || GroupHeldLocked()) {
      lock.unlock();
      work_cv_.notify_one();  // it is the writer's to take
      return;
    }
    TakeGroupLocked(group);
    loop_has_group_ = true;
  }
  if (loop_commits_total_) loop_commits_total_->Increment();
  not_full_cv_.notify_all();
  std::unique_ptr<PreparedGroup> prepared = TakeSpare();
  if (PrepareGroup(group, *prepared)) {
    CommitHere(std::move(prepared));
  } else {
    ReturnSpare(std::move(prepared));
  }
  bool writer_waits = false;
  {
    std::lock_guard lock(mu_);
    loop_has_group_ = false;
    // Entries enqueued meanwhile, or a stop, may have the writer waiting for this group; an
    // idle writer is not woken for nothing (on this VM a needless wake-up costs two switches).
    writer_waits = !queue_.empty() || stopping_;
  }
  if (writer_waits) work_cv_.notify_one();
}

void Journal::WriterLoop() {
  std::vector<std::shared_ptr<Pending>> group;
  while (true) {
    bool stop = false;
    {
      std::unique_lock lock(mu_);
      writer_has_group_ = false;
      if (!writer_started_) {
        // Set under the lock the writer keeps into its wait for work, so that Open's caller
        // cannot enqueue before the writer waits.
        writer_started_ = true;
        started_cv_.notify_all();
      }
      // While the committer writes a group, a short queue waits for it and then goes whole
      // into the next group, as with one thread: a group prepared early would close before
      // the entries that arrive during the sync, which would wait for one more sync. Only a
      // long queue is worth preparing alongside.
      auto wait_for_committer = [&] {
        return committer_busy_ && queue_.size() < kPipelineMinQueued && !stopping_ && failure_.ok();
      };
      // loop_has_group_ first: while a loop thread prepares its group, the chain and checkpoint
      // state (merkle_, checkpoint_size_) are that thread's.
      while (loop_has_group_ ||
             (queue_.empty() && !stopping_ && !(failure_.ok() && CheckpointDueByTime())) ||
             wait_for_committer()) {
        // Poll the clock while a time-based checkpoint is outstanding (the clock may be manual).
        if (!loop_has_group_ && failure_.ok() && merkle_.size() > checkpoint_size_) {
          work_cv_.wait_for(lock, std::chrono::milliseconds(50));
        } else {
          work_cv_.wait(lock);
        }
      }
      writer_has_group_ = true;  // from here: a loop's CommitOnLoop leaves the queue to this thread
      // At a high arrival rate, a short wait lets one sync serve more entries; an urgent
      // (realtime) entry ends it.
      const int64_t delay_us = urgent_queued_ ? 0
                                              : pacer_.DelayUs(queue_.size(), kPipelineMinQueued,
                                                               clock_.MonotonicNanos());
      if (delay_us > 0 && !stopping_) {
        work_cv_.wait_for(lock, std::chrono::microseconds(delay_us), [&] {
          return stopping_ || !failure_.ok() || urgent_queued_ ||
                 queue_.size() >= kPipelineMinQueued;
        });
      }
      TakeGroupLocked(group);
      stop = stopping_ && queue_.empty();
    }
    not_full_cv_.notify_all();
    std::unique_ptr<PreparedGroup> prepared = TakeSpare();
    if (PrepareGroup(group, *prepared)) {
      HandOver(std::move(prepared), stop);
    } else {
      ReturnSpare(std::move(prepared));
    }
    group.clear();
    if (stop) break;
  }
}

void Journal::HandOver(std::unique_ptr<PreparedGroup> prepared, bool stop) {
  bool more_queued = false;
  {
    std::lock_guard lock(mu_);
    more_queued = !queue_.empty();
  }
  std::unique_lock lock(commit_mu_);
  if (more_queued && !stop) {
    // Entries wait: the committer writes and syncs this group while this thread prepares
    // the next one.
    writer_cv_.wait(lock, [&] { return to_commit_ == nullptr; });
    to_commit_ = std::move(prepared);
    SetCommitterBusy(true);
    lock.unlock();
    committer_cv_.notify_one();
    return;
  }
  // Nothing else waits: write it here, after the committer's group, and save a hand-off.
  lock.unlock();
  CommitHere(std::move(prepared));
}

void Journal::CommitHere(std::unique_ptr<PreparedGroup> prepared) {
  std::unique_lock lock(commit_mu_);
  writer_cv_.wait(lock, [&] { return to_commit_ == nullptr && !committing_; });
  committing_ = true;
  lock.unlock();
  CommitPrepared(*prepared);
  lock.lock();
  committing_ = false;
  spare_ = std::move(prepared);
  // No notify: only the thread holding the next group waits for committing_ to clear, and no
  // other thread takes one while this one holds a group.
}

void Journal::CommitterLoop() {
  std::unique_lock lock(commit_mu_);
  while (true) {
    committer_cv_.wait(lock, [&] { return to_commit_ != nullptr || commit_stop_; });
    if (to_commit_ == nullptr) return;
    std::unique_ptr<PreparedGroup> prepared = std::move(to_commit_);
    committing_ = true;
    lock.unlock();
    writer_cv_.notify_one();  // the writer may hand over its next group
    CommitPrepared(*prepared);
    lock.lock();
    committing_ = false;
    spare_ = std::move(prepared);
    if (to_commit_ == nullptr) SetCommitterBusy(false);
    writer_cv_.notify_one();
  }
}

void Journal::SetCommitterBusy(bool busy) {
  {
    std::lock_guard lock(mu_);
    committer_busy_ = busy;
  }
  if (!busy) work_cv_.notify_one();
}

void Journal::PutDecisionIndexes(const Pending& p, const std::string& seq_key,
                                 rocksdb::WriteBatch& batch) const {
  batch.Put(store_->handle(Cf::kByDecision), DecisionIdKey(p.record.decision.decision_id), seq_key);
  batch.Put(store_->handle(Cf::kByTransaction), p.txn_key, seq_key);
  const std::vector<std::string>& accounts = p.record.accounts;
  for (auto account = accounts.begin(); account != accounts.end(); ++account) {
    if (std::find(accounts.begin(), account, *account) != account) {
      continue;  // sender == receiver: one index entry
    }
    batch.Put(store_->handle(Cf::kByAccount), AccountKey(p.record.tenant, *account, p.seq),
              rocksdb::Slice());
  }
}

bool Journal::PrepareGroup(std::vector<std::shared_ptr<Pending>>& group, PreparedGroup& out) {
  bool closing = false;
  Status failure;
  {
    std::lock_guard lock(mu_);
    failure = failure_;
    closing = stopping_ && queue_.empty();
  }
  if (!failure.ok()) {  // failed closed earlier: nothing more is written
    for (auto& p : group) p->done(failure);
    return false;
  }
  if (group.empty() && !closing && !CheckpointDueByTime()) return false;

  out.start_ns = clock_.MonotonicNanos();
  rocksdb::WriteBatch& batch = out.batch;
  batch.Clear();  // keeps its buffer: a group's batch is megabytes, fresh pages cost faults
  Digest prev = chain_hash_;
  CompactMerkle merkle = merkle_;
  out.hashes.clear();
  out.hashes.reserve(group.size());
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
    std::string seq_key = SeqKey(p->seq);
    batch.Put(store_->handle(Cf::kRecords), seq_key, value);
    if (p->record.kind == RecordKind::kAdminEvent) {
      batch.Put(store_->handle(Cf::kByAccount), AdminEventKey(p->record.tenant, p->seq),
                rocksdb::Slice());
    } else {
      PutDecisionIndexes(*p, seq_key, batch);
    }
    for (const StateUpdate& u : p->state_updates) {
      if (u.erase) {
        batch.Delete(store_->handle(Cf::kState), u.key);
      } else {
        batch.Put(store_->handle(Cf::kState), u.key, u.value);
      }
    }
    merkle.AppendLeafHash(MerkleLeafHash(AsBytes(hash)));
    out.hashes.push_back(hash);
    prev = hash;
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
    Status signed_ok = signer_->Sign(*checkpoint);
    if (!signed_ok.ok()) {
      FailClosed(signed_ok, group);
      return false;
    }
    batch.Put(store_->handle(Cf::kCheckpoints), SeqKey(checkpoint->tree_size),
              EncodeCheckpoint(*checkpoint));
  }
  if (!group.empty()) {
    JournalHead head{merkle.size(), prev, merkle};
    batch.Put(store_->handle(Cf::kMeta), kMetaHeadKey, EncodeHead(head));
  }

  // The chain advances now, before the write: the next group is prepared on top of this one
  // while it is written. Should the write fail, the journal fails closed and writes nothing
  // more, so no record ever follows a hash that is not stored.
  chain_hash_ = prev;
  merkle_ = std::move(merkle);
  if (checkpoint) {
    checkpoint_size_ = checkpoint->tree_size;
    checkpoint_time_us_ = checkpoint->time_us;
  }
  out.last_hash = prev;
  out.group = std::move(group);
  return true;
}

void Journal::CommitPrepared(PreparedGroup& prepared) {
  std::vector<std::shared_ptr<Pending>>& group = prepared.group;
  Status failure;
  {
    std::lock_guard lock(mu_);
    failure = failure_;
  }
  if (!failure.ok()) {  // the group before this one failed: this one is refused, not written
    for (auto& p : group) p->done(failure);
    group.clear();
    return;
  }
  if (Status room = CheckFreeSpace(prepared.batch.GetDataSize()); !room.ok()) {
    FailClosed(room, group);
    group.clear();
    return;
  }
  Status written = WriteGroup(prepared.batch, group.empty() ? 1 : group.front()->seq,
                              group.empty() ? 0 : group.back()->seq);
  if (!written.ok()) {
    FailClosed(written, group);
    group.clear();
    return;
  }
  if (group.empty()) return;

  std::vector<std::function<void(const Status&)>> ready;
  {
    std::lock_guard lock(mu_);
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
  double seconds = static_cast<double>(clock_.MonotonicNanos() - prepared.start_ns) / 1e9;
  if (commits_total_) commits_total_->Increment();
  if (records_total_) records_total_->Increment(group.size());
  if (group_size_) group_size_->Observe(static_cast<double>(group.size()));
  if (commit_seconds_) commit_seconds_->Observe(seconds);
  for (size_t i = 0; i < group.size(); ++i) {
    group[i]->done(CommitInfo{group[i]->seq, prepared.hashes[i]});
  }
  for (auto& w : ready) w(Status::Ok());
  group.clear();
}

Status Journal::WriteGroup(rocksdb::WriteBatch& batch, uint64_t first_seq, uint64_t last_seq) {
  const bool sync = options_.durability == Durability::kSync;
  const std::string_view data = batch.Data();
  if (!commit_log_ || first_seq > last_seq || !commit_log_->CouldEverFit(data.size())) {
    VERDICT_RETURN_IF_ERROR(store_->Write(batch, sync));
    // That sync made every earlier group durable in the store; the log must start over, or
    // the next frame would not continue the last one's sequence and a replay would stop there.
    if (commit_log_) commit_log_->Restart();
    return Status::Ok();
  }
  if (!commit_log_->Fits(data.size())) {
    // The other half holds the pass before this one, which it is about to overwrite: the store
    // must hold those groups durably first. Their sync began when this pass did and has
    // normally long ended; made here, on the committing thread, it held up every commit behind
    // it (2.5-10 ms under the issue 7 overload, docs/PERFORMANCE.md, session 24).
    if (wal_sync_->Running() && wal_sync_waits_total_) wal_sync_waits_total_->Increment();
    VERDICT_RETURN_IF_ERROR(wal_sync_->Wait());
    VERDICT_RETURN_IF_ERROR(commit_log_->SwitchHalf());
    // Every group of the pass just ended is in the store by now (each written after its
    // frame): synced there while the next pass is written.
    wal_sync_->Start();
  }
  // The frame first: the store then never holds a group that is not durable, so nothing reads
  // it before it is, and a group whose frame failed is not in the store at all (as when a WAL
  // sync fails). The store's own write is unsynced; a crash before it is synced is repaired
  // from the frame on open.
  VERDICT_RETURN_IF_ERROR(commit_log_->Append(first_seq, last_seq, data));
  VERDICT_RETURN_IF_ERROR(commit_log_->Sync());
  return store_->Write(batch, /*sync=*/false);
}

Status Journal::ReplayCommitLog() {
  const std::string path = options_.data_dir + "/commit.log";
  const std::shared_ptr<rocksdb::FileSystem> fs =
      options_.file_system ? options_.file_system : rocksdb::FileSystem::Default();
  VERDICT_ASSIGN_OR_RETURN(std::vector<CommitLogFrame> frames, CommitLog::ReadFrames(*fs, path));
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> head_bytes,
                           store_->Get(Cf::kMeta, kMetaHeadKey));
  uint64_t last_seq = 0;
  if (head_bytes) {
    VERDICT_ASSIGN_OR_RETURN(JournalHead head, DecodeHead(*head_bytes));
    last_seq = head.last_seq;
  }
  size_t replayed = 0;
  for (CommitLogFrame& frame : frames) {
    if (frame.last_seq <= last_seq) continue;  // the store kept it
    if (frame.first_seq != last_seq + 1) {
      return Status(StatusCode::kFailedPrecondition,
                    "commit log frame of records " + std::to_string(frame.first_seq) + ".." +
                        std::to_string(frame.last_seq) +
                        " does not follow the store's last record " + std::to_string(last_seq) +
                        "; run `verdict audit verify`");
    }
    // Only the frame's 8-byte check vouches for these bytes: read them before RocksDB does,
    // so that a forged or damaged batch is named rather than half understood (group_batch.h).
    if (Result<std::vector<GroupBatchOp>> ops =
            CheckGroupBatch(*store_, frame.payload, frame.first_seq, frame.last_seq);
        !ops.ok()) {
      return Status(StatusCode::kFailedPrecondition,
                    "commit log frame of records " + std::to_string(frame.first_seq) + ".." +
                        std::to_string(frame.last_seq) +
                        " does not hold its group's write batch (" + ops.status().message() +
                        "); run `verdict audit verify`");
    }
    rocksdb::WriteBatch batch(std::move(frame.payload));
    VERDICT_RETURN_IF_ERROR(store_->Write(batch, /*sync=*/true));
    last_seq = frame.last_seq;
    ++replayed;
  }
  if (replayed > 0) {
    spdlog::warn("journal: {} group commits (to record {}) were in the commit log only; replayed",
                 replayed, last_seq);
  }
  // What the store recovered from its own WAL on open may sit in the page cache only (after a
  // kill, not a power loss): durable before the log's frames are overwritten or removed.
  VERDICT_RETURN_IF_ERROR(store_->SyncWal());
  if (options_.durability != Durability::kSync || options_.commit_log_bytes == 0) {
    rocksdb::IOStatus removed = fs->DeleteFile(path, rocksdb::IOOptions(), nullptr);
    if (!removed.ok() && !removed.IsNotFound() && !removed.IsPathNotFound()) {
      return Unavailable("cannot remove the unused commit log " + path + ": " + removed.ToString());
    }
    return Status::Ok();
  }
  if (CommitLog::WouldCreate(*fs, path, options_.commit_log_bytes)) {
    // Its room is taken at once, from the reserve kept against a full disk (RocksDB 7.8 can
    // abort on ENOSPC): refuse to start rather than eat into it.
    const std::optional<uint64_t> free_bytes = FreeBytesIn(options_.data_dir);
    if (options_.min_free_bytes > 0 && free_bytes &&
        *free_bytes < options_.commit_log_bytes + options_.min_free_bytes) {
      return Unavailable("no room for the journal's commit log: it takes " +
                         std::to_string(options_.commit_log_bytes >> 20) + " MiB, and " +
                         std::to_string(*free_bytes >> 20) + " MiB are free in " +
                         options_.data_dir + " with a reserve of " +
                         std::to_string(options_.min_free_bytes >> 20) +
                         " MiB to keep (journal.commit_log_mb, journal.min_free_mb)");
    }
  }
  VERDICT_ASSIGN_OR_RETURN(commit_log_, CommitLog::Open(fs, path, options_.commit_log_bytes,
                                                        options_.commit_log_direct_io));
  wal_sync_ = std::make_unique<BackgroundSync>(
      [this] {
        const int64_t start_ns = clock_.MonotonicNanos();
        Status synced = store_->SyncWal();
        if (wal_sync_seconds_) {
          wal_sync_seconds_->Observe(static_cast<double>(clock_.MonotonicNanos() - start_ns) / 1e9);
        }
        return synced;
      },
      "journal-walsync");
  spdlog::info("journal: commit log {} ({} MiB) written {}", path, options_.commit_log_bytes >> 20,
               commit_log_->direct_io() ? "with O_DIRECT" : "through the page cache");
  return Status::Ok();
}

Status Journal::CheckFreeSpace(size_t batch_bytes) {
  if (options_.min_free_bytes == 0) return Status::Ok();
  // statvfs walks the path and enters the kernel: at low rates, where each group holds one
  // decision, it was ~2 % of the engine's CPU. It is repeated every 100 ms, and sooner once our
  // own writes since (times 4, for the flush and compactions that follow them) could have used
  // the room that was left above the reserve.
  constexpr int64_t kRecheckNs = 100'000'000;
  constexpr uint64_t kWriteAmplification = 4;
  const int64_t now = clock_.MonotonicNanos();
  written_since_check_ += batch_bytes;
  const uint64_t room =
      space_free_bytes_ > options_.min_free_bytes ? space_free_bytes_ - options_.min_free_bytes : 0;
  if (space_checked_ns_ != 0 && now - space_checked_ns_ < kRecheckNs &&
      written_since_check_ * kWriteAmplification < room) {
    return Status::Ok();
  }
  const std::optional<uint64_t> free_bytes_known = FreeBytesIn(options_.data_dir);
  if (!free_bytes_known) return Status::Ok();  // cannot tell: write
  const uint64_t free_bytes = *free_bytes_known;
  space_checked_ns_ = now;
  space_free_bytes_ = free_bytes;
  written_since_check_ = 0;
  if (free_bytes >= options_.min_free_bytes) return Status::Ok();
  return Unavailable("disk nearly full: " + std::to_string(free_bytes) + " bytes free in " +
                     options_.data_dir + ", below the reserve of " +
                     std::to_string(options_.min_free_bytes));
}

void Journal::FailClosed(const Status& cause, std::vector<std::shared_ptr<Pending>>& group) {
  Status failure = Unavailable("journal failed closed: " + cause.message());
  spdlog::error("journal: {}; no further decisions will be acknowledged until a restart",
                failure.message());
  std::deque<std::shared_ptr<Pending>> queued;
  std::multimap<uint64_t, std::function<void(const Status&)>> waiters;
  {
    std::lock_guard lock(mu_);
    failure_ = failure;
    queued.swap(queue_);
    waiters.swap(waiters_);
    pending_txn_.clear();
    ++committed_gen_;
  }
  not_full_cv_.notify_all();
  if (failures_total_) failures_total_->Increment();
  if (healthy_gauge_) healthy_gauge_->Set(0);
  for (auto& p : group) p->done(failure);
  for (auto& p : queued) p->done(failure);
  for (auto& [seq, w] : waiters) w(failure);
}

Result<std::optional<JournalRecord>> Journal::ReadRecord(uint64_t seq) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> stored,
                           store_->Get(Cf::kRecords, SeqKey(seq)));
  if (!stored) return std::optional<JournalRecord>();
  VERDICT_ASSIGN_OR_RETURN(JournalRecord record, DecodeStoredEntry(*stored, cipher_.get()));
  if (record.seq != seq) {
    return Internal("journal record " + std::to_string(seq) + " is stored under a wrong key");
  }
  return std::optional<JournalRecord>(std::move(record));
}

Result<std::optional<JournalRecord>> Journal::FindByDecisionId(const Uuid& decision_id) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> seq,
                           store_->Get(Cf::kByDecision, DecisionIdKey(decision_id)));
  if (!seq) return std::optional<JournalRecord>();
  return ReadRecord(ParseSeqKey(*seq));
}

Result<std::optional<StoredRecord>> Journal::FindByTransaction(
    std::string_view tenant, std::string_view transaction_id) const {
  std::string key = TransactionKey(tenant, transaction_id);
  {
    std::lock_guard lock(mu_);
    auto it = pending_txn_.find(key);
    if (it != pending_txn_.end()) {
      return std::optional<StoredRecord>(StoredRecord{it->second->record, false});
    }
  }
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> seq, store_->Get(Cf::kByTransaction, key));
  if (!seq) return std::optional<StoredRecord>();
  VERDICT_ASSIGN_OR_RETURN(std::optional<JournalRecord> record, ReadRecord(ParseSeqKey(*seq)));
  if (!record) return Internal("transaction index points at a missing record");
  return std::optional<StoredRecord>(StoredRecord{std::move(*record), true});
}

Result<IdempotencyCheck> Journal::CheckIdempotency(std::string_view tenant,
                                                   std::string_view transaction_id,
                                                   std::string_view canonical_input) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<StoredRecord> existing,
                           FindByTransaction(tenant, transaction_id));
  IdempotencyCheck check;
  if (!existing) return check;
  check.verdict = existing->record.input_sha256 == Sha256(canonical_input) ? Idempotency::kReplay
                                                                           : Idempotency::kConflict;
  check.existing = std::move(existing);
  return check;
}

Status Journal::RecordAdminEvent(const AdminEvent& event) {
  JournalEntry entry;
  entry.record.kind = RecordKind::kAdminEvent;
  entry.record.decided_at_us = clock_.NowMicros();
  entry.record.tenant = event.tenant;
  entry.record.principal = event.principal;
  entry.record.admin = AdminAction{event.action, event.object, event.details_json};
  auto done = std::make_shared<std::promise<Status>>();
  std::future<Status> committed = done->get_future();
  VERDICT_RETURN_IF_ERROR(Enqueue(std::move(entry), [done](const Result<CommitInfo>& info) {
                            done->set_value(info.ok() ? Status::Ok() : info.status());
                          }).status());
  HandLoopCommitToWriter();
  return committed.get();
}

Result<std::vector<JournalRecord>> Journal::ListAdminEvents(std::string_view tenant, size_t limit,
                                                            uint64_t before_seq) const {
  return ListIndexed(AdminEventPrefix(tenant), limit, before_seq);
}

Result<std::vector<JournalRecord>> Journal::ListByAccount(std::string_view tenant,
                                                          std::string_view account, size_t limit,
                                                          uint64_t before_seq) const {
  if (account.empty()) return std::vector<JournalRecord>{};  // the admin events' index
  return ListIndexed(AccountPrefix(tenant, account), limit, before_seq);
}

Result<std::vector<JournalRecord>> Journal::ListIndexed(const std::string& prefix, size_t limit,
                                                        uint64_t before_seq) const {
  std::vector<JournalRecord> out;
  if (limit == 0 || before_seq <= 1) return out;
  std::unique_ptr<rocksdb::Iterator> it = store_->NewPrefixIterator(Cf::kByAccount);
  std::string start = prefix;
  ByteWriter(start).U64(~(before_seq - 1));  // AccountKey's inverted seq: newest first
  it->Seek(start);
  for (; it->Valid() && out.size() < limit; it->Next()) {
    std::string_view key = it->key().ToStringView();
    if (!key.starts_with(prefix) || key.size() != prefix.size() + 8) break;
    VERDICT_ASSIGN_OR_RETURN(std::optional<JournalRecord> record, ReadRecord(AccountKeySeq(key)));
    if (record) out.push_back(std::move(*record));
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "listing indexed records"));
  return out;
}

Result<std::optional<std::string>> Journal::GetAccountState(std::string_view key) const {
  return store_->Get(Cf::kState, key);
}

Status Journal::ForEachAccountState(
    const std::function<Status(std::string_view key, std::string_view value)>& fn) const {
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kState);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    VERDICT_RETURN_IF_ERROR(fn(it->key().ToStringView(), it->value().ToStringView()));
  }
  return FromRocks(it->status(), "reading account state");
}

Status Journal::PutRegistry(std::string_view key, std::string_view value, bool sync) {
  rocksdb::WriteBatch batch;
  batch.Put(store_->handle(Cf::kRegistry), key, value);
  return store_->Write(batch, sync);
}

Status Journal::DeleteRegistry(std::string_view key) {
  rocksdb::WriteBatch batch;
  batch.Delete(store_->handle(Cf::kRegistry), key);
  return store_->Write(batch, /*sync=*/true);
}

Result<std::optional<std::string>> Journal::GetRegistry(std::string_view key) const {
  return store_->Get(Cf::kRegistry, key);
}

Result<std::vector<std::pair<std::string, std::string>>> Journal::ListRegistry(
    std::string_view prefix) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kRegistry);
  for (it->Seek(prefix); it->Valid() && it->key().ToStringView().starts_with(prefix); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "listing the registry"));
  return out;
}

Result<std::optional<Checkpoint>> Journal::LatestCheckpoint() const {
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kCheckpoints);
  it->SeekToLast();
  if (!it->Valid()) {
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading checkpoints"));
    return std::optional<Checkpoint>();
  }
  VERDICT_ASSIGN_OR_RETURN(Checkpoint cp, DecodeCheckpoint(it->value().ToStringView()));
  return std::optional<Checkpoint>(cp);
}

Result<InclusionProof> Journal::ProveInclusion(uint64_t seq, uint64_t tree_size) const {
  if (seq == 0 || seq > tree_size || tree_size > durable_sequence()) {
    return InvalidArgument("need 1 <= seq <= tree_size <= durable sequence");
  }
  std::vector<Digest> leaves;
  leaves.reserve(tree_size);
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kRecords);
  uint64_t expected = 1;
  for (it->Seek(SeqKey(1)); it->Valid() && expected <= tree_size; it->Next(), ++expected) {
    if (ParseSeqKey(it->key().ToStringView()) != expected) {
      return Internal("journal record " + std::to_string(expected) + " is missing");
    }
    VERDICT_ASSIGN_OR_RETURN(EntryView entry, DecodeEntry(it->value().ToStringView()));
    leaves.push_back(MerkleLeafHash(AsBytes(entry.record_hash)));
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading records"));
  if (leaves.size() != tree_size) return Internal("journal has fewer records than its head");
  InclusionProof proof;
  proof.seq = seq;
  proof.tree_size = tree_size;
  proof.leaf_hash = leaves[seq - 1];
  proof.path = MerkleInclusionProof(leaves, seq - 1);
  proof.root = MerkleRoot(leaves);
  return proof;
}

}  // namespace verdict::journal
