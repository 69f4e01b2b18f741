// JournalStore: the RocksDB database under the data dir with the journal's column families and
// key encodings (docs/journal_format.md §6). Owns the DB; reads and Write are thread-safe
// (RocksDB's own guarantees). Converts every RocksDB error and exception into a Status.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/file_system.h>
#include <rocksdb/write_batch.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::journal {

class BackgroundPriority;

enum class Cf : int {
  kDefault = 0,
  kState,          // account key → opaque state bytes (owned by the feature engine)
  kRecords,        // seq (u64 BE) → stored entry
  kByDecision,     // decision id (16 bytes) → seq
  kByTransaction,  // tenant \0 transaction id → seq
  kByAccount,      // tenant \0 account \0 ~seq → "" (newest first)
  kCheckpoints,    // tree size (u64 BE) → checkpoint
  kMeta,           // "head", "dek/<id>", "format"
  kRegistry,       // generic key/value for the model and policy registry
  kCount,
};
std::string_view CfName(Cf cf);

inline constexpr std::string_view kMetaHeadKey = "head";
inline constexpr std::string_view kMetaDekPrefix = "dek/";
inline constexpr std::string_view kMetaFormatKey = "format";
inline constexpr std::string_view kStoreFormat = "2";

std::string SeqKey(uint64_t seq);
// Returns 0 unless `key` is exactly 8 bytes.
uint64_t ParseSeqKey(std::string_view key);
std::string TransactionKey(std::string_view tenant, std::string_view transaction_id);
std::string AccountPrefix(std::string_view tenant, std::string_view account);
// The seq is stored inverted (~seq, big-endian), so key order within an account is newest
// first: the hash memtable's prefix iterator only moves forward from a Seek.
std::string AccountKey(std::string_view tenant, std::string_view account, uint64_t seq);
// The seq of an AccountKey (its last 8 bytes); 0 if shorter.
uint64_t AccountKeySeq(std::string_view key);
// Admin events are indexed in the by_account family under the empty account, which no
// decision can use (account keys are non-empty): tenant \0 \0 seq.
inline std::string AdminEventPrefix(std::string_view tenant) { return AccountPrefix(tenant, {}); }
inline std::string AdminEventKey(std::string_view tenant, uint64_t seq) {
  return AccountKey(tenant, {}, seq);
}

struct StoreOptions {
  std::string data_dir;
  bool read_only = false;
  bool create_if_missing = true;
  // Test hook: the file system RocksDB uses (e.g. FaultInjectingFileSystem); null = default.
  std::shared_ptr<rocksdb::FileSystem> file_system;
  // Larger write buffers mean fewer flushes under sustained group commit.
  size_t write_buffer_bytes = 64 << 20;
  // Runs flushes and compactions at idle priority (BackgroundPriority, its watchdog started by
  // Open and closed before the DB). Null: RocksDB's default (normal priority). Ignored read-only.
  std::shared_ptr<BackgroundPriority> background_priority;
  // Open refuses a WAL with a bad record before its end (kTolerateCorruptedTailRecords) instead
  // of recovering to the point before it: for a WAL whose every write was synced (store.cc).
  bool strict_wal_recovery = false;
};

class JournalStore {
 public:
  static Result<std::unique_ptr<JournalStore>> Open(const StoreOptions& options);
  ~JournalStore();
  JournalStore(const JournalStore&) = delete;
  JournalStore& operator=(const JournalStore&) = delete;

  Status Write(rocksdb::WriteBatch& batch, bool sync);
  // Makes every write so far durable (syncs the WAL).
  Status SyncWal();
  // Reads every table file whole and checks each block against its checksum; kDataLoss naming
  // the first file that fails. Returns early (Ok) once `cancel` is set. Slow: seconds per GB.
  Status VerifyTableChecksums(const std::atomic<bool>& cancel) const;
  Result<std::optional<std::string>> Get(Cf cf, std::string_view key) const;
  // Iterates the whole family in key order.
  std::unique_ptr<rocksdb::Iterator> NewIterator(Cf cf) const;
  // Iterates only keys with the sought key's prefix (by_account: one account's or one tenant's
  // admin entries); cheap on the hash memtable, where a whole-family scan sorts it first.
  std::unique_ptr<rocksdb::Iterator> NewPrefixIterator(Cf cf) const;

  rocksdb::ColumnFamilyHandle* handle(Cf cf) const { return handles_[static_cast<int>(cf)]; }
  // For tests (tamper injection) and tooling; the store keeps ownership.
  rocksdb::DB* db() const { return db_.get(); }
  bool read_only() const { return read_only_; }

 private:
  JournalStore() = default;
  // Brings an older store's key layout up to kStoreFormat (read-write), or refuses one it
  // cannot read (read-only).
  Status UpgradeFormat();

  std::unique_ptr<rocksdb::Env> env_;                        // must outlive db_
  std::shared_ptr<BackgroundPriority> background_priority_;  // also held by db_ as a listener
  std::unique_ptr<rocksdb::DB> db_;
  std::array<rocksdb::ColumnFamilyHandle*, static_cast<int>(Cf::kCount)> handles_{};
  bool read_only_ = false;
};

Status FromRocks(const rocksdb::Status& s, std::string_view what);

}  // namespace verdict::journal
