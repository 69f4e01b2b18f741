#include "journal/store.h"

#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>

#include <exception>
#include <filesystem>
#include <vector>

#include "journal/background_priority.h"
#include "journal/bytes.h"
#include "journal/hash_vector_rep.h"

namespace verdict::journal {
namespace {

// by_account keys are tenant \0 account \0 seq(8): the prefix is everything before the seq,
// so one account's entries share a hash bucket and list by prefix iteration.
class AccountPrefixTransform : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "verdict.AccountPrefix.v1"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return rocksdb::Slice(key.data(), key.size() - 8);
  }
  bool InDomain(const rocksdb::Slice& key) const override { return key.size() > 8; }
};

constexpr std::array<std::string_view, static_cast<int>(Cf::kCount)> kCfNames = {
    "default",    "state",       "records", "by_decision", "by_transaction",
    "by_account", "checkpoints", "meta",    "registry"};

}  // namespace

std::string_view CfName(Cf cf) { return kCfNames[static_cast<int>(cf)]; }

std::string SeqKey(uint64_t seq) {
  std::string out;
  ByteWriter(out).U64(seq);
  return out;
}

uint64_t ParseSeqKey(std::string_view key) {
  if (key.size() != 8) return 0;
  return ByteReader(key).U64();
}

std::string TransactionKey(std::string_view tenant, std::string_view transaction_id) {
  std::string out;
  out.reserve(tenant.size() + 1 + transaction_id.size());
  out.append(tenant).push_back('\0');
  out.append(transaction_id);
  return out;
}

std::string AccountPrefix(std::string_view tenant, std::string_view account) {
  std::string out;
  out.reserve(tenant.size() + account.size() + 10);
  out.append(tenant).push_back('\0');
  out.append(account).push_back('\0');
  return out;
}

std::string AccountKey(std::string_view tenant, std::string_view account, uint64_t seq) {
  std::string out = AccountPrefix(tenant, account);
  ByteWriter(out).U64(~seq);
  return out;
}

uint64_t AccountKeySeq(std::string_view key) {
  if (key.size() < 8) return 0;
  return ~ByteReader(key.substr(key.size() - 8)).U64();
}

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::Ok();
  std::string msg = std::string(what) + ": " + s.ToString();
  if (s.IsInvalidArgument() || s.IsCorruption()) {
    return Status(StatusCode::kFailedPrecondition, msg);
  }
  return Unavailable(msg);
}

Result<std::unique_ptr<JournalStore>> JournalStore::Open(const StoreOptions& options) {
  try {
    auto store = std::unique_ptr<JournalStore>(new JournalStore());
    store->read_only_ = options.read_only;
    if (!options.read_only && options.create_if_missing) {
      std::error_code ec;
      std::filesystem::create_directories(options.data_dir, ec);
      if (ec) return Unavailable("cannot create " + options.data_dir + ": " + ec.message());
    }
    rocksdb::DBOptions db_options;
    db_options.create_if_missing = options.create_if_missing && !options.read_only;
    db_options.create_missing_column_families = !options.read_only;
    db_options.paranoid_checks = true;
    // A write or sync error must stop writes rather than be retried behind our back.
    db_options.max_background_jobs = 2;
    db_options.manual_wal_flush = false;
    // A flush or compaction writes its table out every megabyte rather than all at its end: a
    // WAL fdatasync ends with a device cache flush, which waits for the writes queued ahead of
    // it, and a 64 MB table written out at once would queue ahead of every commit meanwhile.
    db_options.bytes_per_sync = 1 << 20;
    // Likewise the WAL, which the commit log leaves unsynced for a whole pass of one of its
    // halves: the background sync after the pass then waits for the last megabyte, not all.
    db_options.wal_bytes_per_sync = 1 << 20;
    // Where the WAL is what makes a group durable (every write synced), a record that does not
    // check before the WAL's end was acknowledged: open refuses rather than recover to the point
    // before it (RocksDB's default), and only a torn last record, cut short by a crash before its
    // sync returned, is dropped. Where the commit log makes groups durable the WAL is written
    // unsynced on purpose and may end anywhere after a power failure: the point before the first
    // bad record is then a valid start, and what it lacks is the commit log's to restore or to
    // report as lost (RocksJournalBackend::ReplayCommitLog).
    db_options.wal_recovery_mode = options.strict_wal_recovery
                                       ? rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords
                                       : rocksdb::WALRecoveryMode::kPointInTimeRecovery;
    if (options.file_system) {
      store->env_ = rocksdb::NewCompositeEnv(options.file_system);
      db_options.env = store->env_.get();
    }
    if (options.background_priority && !options.read_only) {
      db_options.listeners.push_back(options.background_priority);
      store->background_priority_ = options.background_priority;
      store->background_priority_->StartWatchdog();
    }
    // One thread at a time writes a group; hinted inserts (below) need this off.
    db_options.allow_concurrent_memtable_write = false;
    rocksdb::ColumnFamilyOptions base;
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    base.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    // Memtable inserts dominate the committer's CPU. Checkpoints, which arrive in sequence
    // order, insert next to the previous key with a hint; the families written on every decision
    // use our hash-vector memtable (below). All but records get smaller memtables, which stay in
    // cache.
    std::shared_ptr<const rocksdb::SliceTransform> ordered(rocksdb::NewFixedPrefixTransform(1));
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    for (int i = 0; i < static_cast<int>(Cf::kCount); ++i) {
      rocksdb::ColumnFamilyOptions cf_options = base;
      Cf cf = static_cast<Cf>(i);
      if (cf == Cf::kCheckpoints) {
        cf_options.memtable_insert_with_hint_prefix_extractor = ordered;
      }
      // Skiplist inserts were the committing thread's largest cost (one cache miss per level for
      // random keys; key comparisons even for hinted in-order ones). These families insert in
      // O(1) instead; sorting moves to the flush, on a background thread (docs/PERFORMANCE.md,
      // journal).
      if (cf == Cf::kState) {
        // Written on every decision, read only by whole scans (recovery, replay): an unsorted
        // vector, sorted once at flush. A point Get would scan it: keep it off this family.
        cf_options.memtable_factory = std::make_shared<HashVectorRepFactory>(
            cf_options.comparator, HashVectorRepFactory::Lookup::kScan);
      } else if (cf == Cf::kByTransaction || cf == Cf::kRecords || cf == Cf::kByDecision) {
        // Point lookups (idempotency on every Enqueue; a record or decision id by key) and audit
        // scans: hashed by whole key. A scan of a live memtable sorts a copy of it first.
        cf_options.prefix_extractor.reset(rocksdb::NewNoopTransform());
        cf_options.memtable_factory = std::make_shared<HashVectorRepFactory>(cf_options.comparator);
      } else if (cf == Cf::kByAccount) {
        // Listed per account, newest first, by a forward prefix iteration (see AccountKey):
        // hashed by account.
        cf_options.prefix_extractor = std::make_shared<AccountPrefixTransform>();
        cf_options.memtable_factory = std::make_shared<HashVectorRepFactory>(cf_options.comparator);
      }
      // Index and state values are short and barely compress; only record payloads (canonical
      // input JSON, reasons) are worth the flush thread's CPU.
      if (cf != Cf::kRecords) cf_options.compression = rocksdb::kNoCompression;
      cf_options.write_buffer_size =
          cf == Cf::kRecords ? options.write_buffer_bytes : options.write_buffer_bytes / 4;
      descriptors.emplace_back(std::string(kCfNames[i]), cf_options);
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    rocksdb::Status s =
        options.read_only
            ? rocksdb::DB::OpenForReadOnly(db_options, options.data_dir, descriptors, &handles, &db)
            : rocksdb::DB::Open(db_options, options.data_dir, descriptors, &handles, &db);
    if (s.IsCorruption()) {
      // Its WAL or a table file is damaged (a WAL record that does not check before the end, with
      // strict_wal_recovery): what it held was acknowledged, so this is loss, not a recovery.
      return DataLoss("the journal store in " + options.data_dir + " is damaged: " + s.ToString());
    }
    VERDICT_RETURN_IF_ERROR(FromRocks(s, "cannot open journal store in " + options.data_dir));
    store->db_.reset(db);
    for (size_t i = 0; i < handles.size(); ++i) store->handles_[i] = handles[i];
    VERDICT_RETURN_IF_ERROR(store->UpgradeFormat());
    return store;
  } catch (const std::exception& e) {
    return Internal(std::string("opening the journal store threw: ") + e.what());
  }
}

// Format 1 keyed by_account entries by seq ascending; format 2 by ~seq, so
// that a forward prefix iteration lists newest first. Rewrites a format-1 index in one batch.
Status JournalStore::UpgradeFormat() {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> format, Get(Cf::kMeta, kMetaFormatKey));
  if (format == kStoreFormat) return Status::Ok();
  if (format) {
    return Status(StatusCode::kFailedPrecondition, "journal store format " + *format +
                                                       " is not supported (this build writes " +
                                                       std::string(kStoreFormat) + ")");
  }
  rocksdb::WriteBatch batch;
  std::unique_ptr<rocksdb::Iterator> it = NewIterator(Cf::kByAccount);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string key = it->key().ToString();
    if (key.size() < 8) return Status(StatusCode::kFailedPrecondition, "corrupt by_account key");
    uint64_t seq = ByteReader(std::string_view(key).substr(key.size() - 8)).U64();
    batch.Delete(handle(Cf::kByAccount), key);
    key.resize(key.size() - 8);
    ByteWriter(key).U64(~seq);
    batch.Put(handle(Cf::kByAccount), key, rocksdb::Slice());
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading the account index"));
  if (batch.Count() > 0 && read_only_) {
    return Status(StatusCode::kFailedPrecondition,
                  "journal store has a format-1 account index; open it once with `verdict "
                  "serve` (read-write) to upgrade it");
  }
  if (read_only_) return Status::Ok();
  batch.Put(handle(Cf::kMeta), kMetaFormatKey, kStoreFormat);
  return Write(batch, /*sync=*/true);
}

JournalStore::~JournalStore() {
  // Jobs still running at close get no Completed callback, and their threads outlive the DB.
  if (background_priority_) background_priority_->Close();
  if (!db_) return;
  for (rocksdb::ColumnFamilyHandle* h : handles_) {
    if (h != nullptr) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();
  db_.reset();
}

Status JournalStore::Write(rocksdb::WriteBatch& batch, bool sync) {
  if (read_only_) return Status(StatusCode::kFailedPrecondition, "journal store is read-only");
  try {
    rocksdb::WriteOptions wo;
    wo.sync = sync;
    return FromRocks(db_->Write(wo, &batch), "journal write failed");
  } catch (const std::exception& e) {
    return Unavailable(std::string("journal write threw: ") + e.what());
  }
}

namespace {

// Keeps the store's obsolete files on disk while it lives: a compaction finishing during the
// checksum pass must not delete a file the pass has listed but not read yet (that read would
// fail as if the file were missing). Counted by RocksDB, so passes and other holders nest. A
// store opened read-only neither compacts nor deletes, and cannot hold.
class FileDeletionHold {
 public:
  FileDeletionHold(rocksdb::DB* db, bool read_only)
      : db_(db), held_(read_only || db->DisableFileDeletions().ok()), read_only_(read_only) {}
  ~FileDeletionHold() {
    if (held_ && !read_only_) db_->EnableFileDeletions(/*force=*/false).PermitUncheckedError();
  }
  FileDeletionHold(const FileDeletionHold&) = delete;
  FileDeletionHold& operator=(const FileDeletionHold&) = delete;
  bool held() const { return held_; }

 private:
  rocksdb::DB* db_;
  bool held_;
  bool read_only_;
};

}  // namespace

Status JournalStore::VerifyTableChecksums(const std::atomic<bool>& cancel) const {
  try {
    const FileDeletionHold hold(db_.get(), read_only_);
    if (!hold.held())
      return Unavailable("the journal store's files could not be held for checking");
    std::vector<rocksdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    for (const rocksdb::LiveFileMetaData& file : files) {
      if (cancel.load(std::memory_order_relaxed)) return Status::Ok();
      rocksdb::ColumnFamilyHandle* family = handles_[0];
      for (rocksdb::ColumnFamilyHandle* h : handles_) {
        if (h != nullptr && h->GetName() == file.column_family_name) family = h;
      }
      const rocksdb::Options options(db_->GetDBOptions(), db_->GetOptions(family));
      rocksdb::ReadOptions read;
      read.fill_cache = false;
      const std::string path = file.db_path + file.name;
      rocksdb::Status s =
          rocksdb::VerifySstFileChecksum(options, rocksdb::EnvOptions(options), read, path);
      if (!s.ok()) {
        return DataLoss("store file " + path + " does not match its checksums: " + s.ToString());
      }
    }
    return Status::Ok();
  } catch (const std::exception& e) {
    return Internal(std::string("verifying the journal store's files threw: ") + e.what());
  }
}

Status JournalStore::SyncWal() {
  if (read_only_) return Status::Ok();
  try {
    return FromRocks(db_->SyncWAL(), "journal WAL sync failed");
  } catch (const std::exception& e) {
    return Unavailable(std::string("journal WAL sync threw: ") + e.what());
  }
}

Result<std::optional<std::string>> JournalStore::Get(Cf cf, std::string_view key) const {
  try {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), handle(cf), key, &value);
    if (s.IsNotFound()) return std::optional<std::string>();
    VERDICT_RETURN_IF_ERROR(FromRocks(s, "journal read failed"));
    return std::optional<std::string>(std::move(value));
  } catch (const std::exception& e) {
    return Unavailable(std::string("journal read threw: ") + e.what());
  }
}

std::unique_ptr<rocksdb::Iterator> JournalStore::NewIterator(Cf cf) const {
  rocksdb::ReadOptions ro;
  ro.total_order_seek = true;  // whole-family scans also over the hash-memtable families
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(ro, handle(cf)));
}

std::unique_ptr<rocksdb::Iterator> JournalStore::NewPrefixIterator(Cf cf) const {
  rocksdb::ReadOptions ro;
  ro.prefix_same_as_start = true;
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(ro, handle(cf)));
}

}  // namespace verdict::journal
