#include "journal/store.h"

#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>

#include <exception>
#include <filesystem>

#include "journal/bytes.h"

namespace verdict::journal {
namespace {

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
  ByteWriter(out).U64(seq);
  return out;
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
    if (options.file_system) {
      store->env_ = rocksdb::NewCompositeEnv(options.file_system);
      db_options.env = store->env_.get();
    }
    // One writer thread inserts each group; hinted inserts (below) need this off.
    db_options.allow_concurrent_memtable_write = false;
    rocksdb::ColumnFamilyOptions base;
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    base.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    // Memtable inserts dominate the writer's CPU. Keys that arrive in order (records and
    // checkpoints by sequence, decision ids by UUIDv7 time) insert next to the previous key
    // with a hint; the randomly keyed families get smaller memtables, which stay in cache.
    std::shared_ptr<const rocksdb::SliceTransform> ordered(rocksdb::NewFixedPrefixTransform(1));
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    for (int i = 0; i < static_cast<int>(Cf::kCount); ++i) {
      rocksdb::ColumnFamilyOptions cf_options = base;
      Cf cf = static_cast<Cf>(i);
      if (cf == Cf::kRecords || cf == Cf::kCheckpoints || cf == Cf::kByDecision) {
        cf_options.memtable_insert_with_hint_prefix_extractor = ordered;
      }
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
    VERDICT_RETURN_IF_ERROR(FromRocks(s, "cannot open journal store in " + options.data_dir));
    store->db_.reset(db);
    for (size_t i = 0; i < handles.size(); ++i) store->handles_[i] = handles[i];
    return store;
  } catch (const std::exception& e) {
    return Internal(std::string("opening the journal store threw: ") + e.what());
  }
}

JournalStore::~JournalStore() {
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
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(rocksdb::ReadOptions(), handle(cf)));
}

}  // namespace verdict::journal
