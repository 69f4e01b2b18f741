#include "journal/rocks_backend.h"

#include <spdlog/spdlog.h>
#include <sys/statvfs.h>

#include <algorithm>

#include "journal/background_priority.h"
#include "journal/bytes.h"
#include "journal/group_batch.h"
#include "journal/stored_record.h"
#include "journal/verifier.h"

namespace verdict::journal {
namespace {

// Bytes free to an unprivileged writer on the file system holding `dir`; none if unknown.
std::optional<uint64_t> FreeBytesIn(const std::string& dir) {
  struct statvfs fs {};
  if (statvfs(dir.c_str(), &fs) != 0) return std::nullopt;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

std::string_view DecisionIdKey(const Uuid& id) {
  return {reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size()};
}

// A group as one WriteBatch; its buffer is kept from group to group (a group's batch is
// megabytes, and fresh pages cost faults).
class RocksGroup final : public BackendGroup {
 public:
  explicit RocksGroup(const JournalStore& store) : store_(store) {}

  void Clear() override { batch_.Clear(); }

  void AddRecord(uint64_t seq, std::string_view stored_entry, const JournalRecord& record,
                 std::string_view txn_key,
                 const std::vector<std::string>& indexed_accounts) override {
    const std::string seq_key = SeqKey(seq);
    batch_.Put(store_.handle(Cf::kRecords), seq_key, stored_entry);
    if (record.kind == RecordKind::kAdminEvent) {
      batch_.Put(store_.handle(Cf::kByAccount), AdminEventKey(record.tenant, seq),
                 rocksdb::Slice());
      return;
    }
    batch_.Put(store_.handle(Cf::kByDecision), DecisionIdKey(record.decision.decision_id), seq_key);
    batch_.Put(store_.handle(Cf::kByTransaction), txn_key, seq_key);
    for (const std::string& account : indexed_accounts) {
      batch_.Put(store_.handle(Cf::kByAccount), AccountKey(record.tenant, account, seq),
                 rocksdb::Slice());
    }
  }

  void AddStateUpdate(const StateUpdate& u) override {
    if (u.erase) {
      batch_.Delete(store_.handle(Cf::kState), u.key);
    } else {
      batch_.Put(store_.handle(Cf::kState), u.key, u.value);
    }
  }

  void AddCheckpoint(const Checkpoint& checkpoint) override {
    batch_.Put(store_.handle(Cf::kCheckpoints), SeqKey(checkpoint.tree_size),
               EncodeCheckpoint(checkpoint));
  }

  void SetHead(const JournalHead& head) override {
    batch_.Put(store_.handle(Cf::kMeta), kMetaHeadKey, EncodeHead(head));
  }

  size_t ByteSize() const override { return batch_.GetDataSize(); }

  rocksdb::WriteBatch& batch() { return batch_; }

 private:
  const JournalStore& store_;
  rocksdb::WriteBatch batch_;
};

}  // namespace

RocksJournalBackend::RocksJournalBackend(const JournalOptions& options)
    : options_(options), clock_(options.clock ? *options.clock : SystemClock::Instance()) {}

RocksJournalBackend::~RocksJournalBackend() = default;

Result<std::unique_ptr<RocksJournalBackend>> RocksJournalBackend::Open(
    const JournalOptions& options) {
  auto backend = std::unique_ptr<RocksJournalBackend>(new RocksJournalBackend(options));
  if (MetricsRegistry* m = options.metrics) {
    backend->wal_sync_seconds_ = m->GetHistogram(
        "verdict_journal_wal_sync_seconds",
        "Time of each background sync of the store's WAL after a commit log pass (no commit "
        "waits for it unless it is still running when the log next changes halves).",
        LatencyBucketsSeconds());
    backend->wal_sync_waits_total_ = m->GetCounter(
        "verdict_journal_wal_sync_waits_total",
        "Commit log half changes that found the WAL sync over the pass before still running "
        "(and waited for it).");
  }
  StoreOptions store_options;
  store_options.data_dir = options.data_dir;
  store_options.file_system = options.file_system;
  store_options.background_priority = backend->MakeBackgroundPriority();
  // The WAL is what makes a group durable only in sync mode without a commit log (store.cc).
  store_options.strict_wal_recovery =
      options.durability == Durability::kSync && options.commit_log_bytes == 0;
  VERDICT_ASSIGN_OR_RETURN(backend->store_, JournalStore::Open(store_options));
  // Also when this run has no log: the last one may have had one.
  VERDICT_RETURN_IF_ERROR(backend->ReplayCommitLog());
  return backend;
}

std::shared_ptr<BackgroundPriority> RocksJournalBackend::MakeBackgroundPriority() {
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

std::unique_ptr<BackendGroup> RocksJournalBackend::NewGroup() {
  return std::make_unique<RocksGroup>(*store_);
}

Status RocksJournalBackend::CommitGroup(BackendGroup& group, uint64_t first_seq,
                                        uint64_t last_seq) {
  // Every group comes from NewGroup.
  rocksdb::WriteBatch& batch = static_cast<RocksGroup&>(group).batch();
  VERDICT_RETURN_IF_ERROR(CheckFreeSpace(batch.GetDataSize()));
  return WriteGroup(batch, first_seq, last_seq);
}

Status RocksJournalBackend::WriteGroup(rocksdb::WriteBatch& batch, uint64_t first_seq,
                                       uint64_t last_seq) {
  const bool sync = options_.durability == Durability::kSync;
  const std::string_view data = batch.Data();
  if (first_seq <= last_seq) last_written_seq_ = last_seq;
  if (!commit_log_ || first_seq > last_seq ||
      !commit_log_->CouldEverFit(data.size() + CommitLog::kDurableMarkBytes)) {
    VERDICT_RETURN_IF_ERROR(store_->Write(batch, sync));
    if (!commit_log_) return Status::Ok();
    // That sync made every earlier group durable in the store; the log must start over, or
    // the next frame would not continue the last one's sequence and a replay would stop there.
    // It starts with that mark, so that a WAL that later loses this write is found out.
    commit_log_->Restart();
    VERDICT_RETURN_IF_ERROR(
        commit_log_->AppendDurableMark(last_written_seq_ + 1, last_written_seq_));
    return commit_log_->Sync();
  }
  if (!commit_log_->Fits(data.size())) {
    // The other half holds the pass before this one, which it is about to overwrite: the store
    // must hold those groups durably first. Their sync began when this pass did and has
    // normally long ended; made here, on the committing thread, it would hold up every commit
    // behind it (docs/PERFORMANCE.md, Journal: the WAL syncs at the overload).
    if (wal_sync_->Running() && wal_sync_waits_total_) wal_sync_waits_total_->Increment();
    VERDICT_RETURN_IF_ERROR(wal_sync_->Wait());
    VERDICT_RETURN_IF_ERROR(commit_log_->SwitchHalf());
    // The pass begins with how far that sync made the store durable.
    VERDICT_RETURN_IF_ERROR(commit_log_->AppendDurableMark(first_seq, wal_sync_through_));
    // Every group of the pass just ended is in the store by now (each written after its
    // frame): synced there while the next pass is written.
    wal_sync_through_ = first_seq - 1;
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

Status RocksJournalBackend::ReplayCommitLog() {
  const std::string path = options_.data_dir + "/commit.log";
  const std::shared_ptr<rocksdb::FileSystem> fs =
      options_.file_system ? options_.file_system : rocksdb::FileSystem::Default();
  VERDICT_ASSIGN_OR_RETURN(CommitLogScan scan, CommitLog::Scan(*fs, path));
  uint64_t last_seq = 0;
  Status replayed = ReplayFrames(scan.frames, &last_seq);
  if (replayed.ok() && scan.loss) {
    if (scan.loss->through_seq > last_seq) {
      // The log shows groups acknowledged that neither it nor the store holds any more.
      replayed =
          Status(StatusCode::kFailedPrecondition,
                 CommitLogLossProblem(*scan.loss, last_seq) + "; run `verdict audit verify`");
    } else {
      spdlog::warn(
          "journal: the commit log is damaged after record {}, but the store holds every "
          "record it had (through {})",
          scan.loss->after_seq, last_seq);
    }
  }
  if (!replayed.ok()) {
    if (replayed.code() != StatusCode::kFailedPrecondition || !options_.open_damaged) {
      return replayed;
    }
    // Opened for investigation: nothing more is written, and the log stays as it was found.
    damage_found_at_open_ = replayed.message();
    return Status::Ok();
  }
  // What the store recovered from its own WAL on open may sit in the page cache only (after a
  // kill, not a power loss): durable before the log's frames are overwritten or removed.
  VERDICT_RETURN_IF_ERROR(store_->SyncWal());
  return OpenCommitLog();
}

Status RocksJournalBackend::ReplayFrames(std::vector<CommitLogFrame>& frames,
                                         uint64_t* replayed_through) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<JournalHead> head, ReadHead());
  uint64_t& last_seq = *replayed_through;
  last_seq = head ? head->last_seq : 0;
  size_t replayed = 0;
  uint64_t durable_mark = 0;
  for (CommitLogFrame& frame : frames) {
    if (std::optional<uint64_t> mark = DurableMarkOf(frame)) {
      durable_mark = std::max(durable_mark, *mark);
      continue;
    }
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
  if (durable_mark > last_seq) {
    return Status(StatusCode::kFailedPrecondition,
                  DurableMarkProblem(durable_mark, last_seq) + "; run `verdict audit verify`");
  }
  return Status::Ok();
}

Status RocksJournalBackend::OpenCommitLog() {
  const std::string path = options_.data_dir + "/commit.log";
  const std::shared_ptr<rocksdb::FileSystem> fs =
      options_.file_system ? options_.file_system : rocksdb::FileSystem::Default();
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
  // The store's WAL was synced on open (ReplayCommitLog): the new log starts with that mark.
  VERDICT_ASSIGN_OR_RETURN(std::optional<JournalHead> head, ReadHead());
  last_written_seq_ = head ? head->last_seq : 0;
  wal_sync_through_ = last_written_seq_;
  VERDICT_RETURN_IF_ERROR(commit_log_->AppendDurableMark(last_written_seq_ + 1, last_written_seq_));
  VERDICT_RETURN_IF_ERROR(commit_log_->Sync());
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

Status RocksJournalBackend::VerifyAtRest(uint64_t through_seq, const PublicKey& trusted_key,
                                         const PayloadCipher* cipher,
                                         const std::atomic<bool>& cancel) const {
  VERDICT_RETURN_IF_ERROR(store_->VerifyTableChecksums(cancel));
  if (cancel.load()) return Status::Ok();
  Result<VerifyReport> report =
      VerifyStorePrefix(*store_, trusted_key, cipher, StoreVerifyLimits{through_seq, &cancel});
  if (cancel.load()) return Status::Ok();
  if (!report.ok()) {
    // The store's reads fail with kFailedPrecondition where RocksDB finds corruption.
    if (report.status().code() != StatusCode::kFailedPrecondition) return report.status();
    return DataLoss("the store cannot read back its records: " + report.status().message());
  }
  if (!report->ok) {
    return DataLoss("record " + std::to_string(report->first_bad_seq) + ": " + report->problem);
  }
  return Status::Ok();
}

Status RocksJournalBackend::CheckFreeSpace(size_t batch_bytes) {
  if (options_.min_free_bytes == 0) return Status::Ok();
  // statvfs walks the path and enters the kernel: at low rates, where each group holds one
  // decision, it is a visible share of the engine's CPU. It is repeated every 100 ms, and sooner
  // once our own writes since (times 4, for the flush and compactions that follow them) could
  // have used the room that was left above the reserve.
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

Result<std::optional<JournalHead>> RocksJournalBackend::ReadHead() const {
  return ReadStoredHead(*store_);
}

Status RocksJournalBackend::LoadDataKeys(PayloadCipher& cipher, uint32_t* max_id) const {
  return journal::LoadDataKeys(*store_, cipher, max_id);
}

Status RocksJournalBackend::PutDataKey(uint32_t id, std::string_view wrapped) {
  std::string key(kMetaDekPrefix);
  ByteWriter(key).U32(id);
  rocksdb::WriteBatch batch;
  batch.Put(store_->handle(Cf::kMeta), key, wrapped);
  return store_->Write(batch, /*sync=*/true);
}

Result<std::optional<std::string>> RocksJournalBackend::ReadEntry(uint64_t seq) const {
  return store_->Get(Cf::kRecords, SeqKey(seq));
}

Status RocksJournalBackend::ScanEntries(
    uint64_t first_seq,
    const std::function<Result<bool>(uint64_t seq, std::string_view entry)>& fn) const {
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kRecords);
  for (it->Seek(SeqKey(first_seq)); it->Valid(); it->Next()) {
    VERDICT_ASSIGN_OR_RETURN(bool more,
                             fn(ParseSeqKey(it->key().ToStringView()), it->value().ToStringView()));
    if (!more) break;
  }
  return FromRocks(it->status(), "reading records");
}

Result<std::optional<uint64_t>> RocksJournalBackend::FindByDecisionId(
    const Uuid& decision_id) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> seq,
                           store_->Get(Cf::kByDecision, DecisionIdKey(decision_id)));
  if (!seq) return std::optional<uint64_t>();
  return std::optional<uint64_t>(ParseSeqKey(*seq));
}

Result<std::optional<uint64_t>> RocksJournalBackend::FindByTransaction(
    std::string_view txn_key) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> seq,
                           store_->Get(Cf::kByTransaction, txn_key));
  if (!seq) return std::optional<uint64_t>();
  return std::optional<uint64_t>(ParseSeqKey(*seq));
}

Status RocksJournalBackend::ScanIndex(std::string_view tenant, std::string_view account,
                                      uint64_t before_seq,
                                      const std::function<Result<bool>(uint64_t seq)>& fn) const {
  if (before_seq <= 1) return Status::Ok();
  const std::string prefix = AccountPrefix(tenant, account);
  std::unique_ptr<rocksdb::Iterator> it = store_->NewPrefixIterator(Cf::kByAccount);
  std::string start = prefix;
  ByteWriter(start).U64(~(before_seq - 1));  // AccountKey's inverted seq: newest first
  for (it->Seek(start); it->Valid(); it->Next()) {
    std::string_view key = it->key().ToStringView();
    if (!key.starts_with(prefix) || key.size() != prefix.size() + 8) break;
    VERDICT_ASSIGN_OR_RETURN(bool more, fn(AccountKeySeq(key)));
    if (!more) break;
  }
  return FromRocks(it->status(), "listing indexed records");
}

Result<std::vector<std::string>> RocksJournalBackend::AdminTenants() const {
  // Keys are tenant \0 account \0 ~seq, and a tenant's admin events (the empty account) sort
  // first among its keys: one seek per tenant, then past the rest of its keys.
  std::vector<std::string> tenants;
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kByAccount);
  for (it->SeekToFirst(); it->Valid();) {
    const std::string_view key = it->key().ToStringView();
    const size_t end = key.find('\0');
    if (end == std::string_view::npos) break;
    std::string tenant(key.substr(0, end));
    if (key.size() > end + 1 && key[end + 1] == '\0') tenants.push_back(tenant);
    tenant.push_back('\x01');
    it->Seek(tenant);
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "listing the tenants of admin events"));
  return tenants;
}

Result<std::optional<Checkpoint>> RocksJournalBackend::LatestCheckpoint() const {
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kCheckpoints);
  it->SeekToLast();
  if (!it->Valid()) {
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading checkpoints"));
    return std::optional<Checkpoint>();
  }
  VERDICT_ASSIGN_OR_RETURN(Checkpoint cp, DecodeCheckpoint(it->value().ToStringView()));
  return std::optional<Checkpoint>(cp);
}

Result<std::optional<std::string>> RocksJournalBackend::GetState(std::string_view key) const {
  return store_->Get(Cf::kState, key);
}

Status RocksJournalBackend::ForEachState(
    const std::function<Status(std::string_view key, std::string_view value)>& fn) const {
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kState);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    VERDICT_RETURN_IF_ERROR(fn(it->key().ToStringView(), it->value().ToStringView()));
  }
  return FromRocks(it->status(), "reading account state");
}

Status RocksJournalBackend::PutRegistry(std::string_view key, std::string_view value, bool sync) {
  rocksdb::WriteBatch batch;
  batch.Put(store_->handle(Cf::kRegistry), key, value);
  return store_->Write(batch, sync);
}

Status RocksJournalBackend::DeleteRegistry(std::string_view key) {
  rocksdb::WriteBatch batch;
  batch.Delete(store_->handle(Cf::kRegistry), key);
  return store_->Write(batch, /*sync=*/true);
}

Result<std::optional<std::string>> RocksJournalBackend::GetRegistry(std::string_view key) const {
  return store_->Get(Cf::kRegistry, key);
}

Result<std::vector<std::pair<std::string, std::string>>> RocksJournalBackend::ListRegistry(
    std::string_view prefix) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kRegistry);
  for (it->Seek(prefix); it->Valid() && it->key().ToStringView().starts_with(prefix); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "listing the registry"));
  return out;
}

}  // namespace verdict::journal
