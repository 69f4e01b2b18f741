// LoggedWrites: the writes of the commit log's frames that continue the store, held in memory
// over it: the journal as the engine's next start would leave it, read without writing anything
// (for the offline verify). Only what a group commit writes is accepted: puts to our column
// families, and deletes of account state; anything else in a frame makes Add fail.
// Not thread-safe; borrows the store, which must outlive it.
#pragma once

#include <rocksdb/write_batch.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "journal/commit_log.h"
#include "journal/store.h"

namespace verdict::journal {

class LoggedWrites : private rocksdb::WriteBatch::Handler {
 public:
  explicit LoggedWrites(const JournalStore& store) : store_(store) {}

  // Adds a frame's writes; false when its payload is not a WriteBatch of a group commit's writes
  // (what it held before the failing write may have been added).
  bool Add(const CommitLogFrame& frame);

  // A key of the index and meta column families, as the frames left it, else the store's.
  Result<std::optional<std::string>> Get(Cf cf, std::string_view key) const;

  // The records and checkpoints put, in the frames' order, as (key, value).
  using KeyValues = std::vector<std::pair<std::string, std::string>>;
  const KeyValues& records() const { return records_; }
  const KeyValues& checkpoints() const { return checkpoints_; }

 private:
  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override;
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override;
  uint32_t Id(Cf cf) const { return store_.handle(cf)->GetID(); }

  const JournalStore& store_;
  std::map<std::pair<uint32_t, std::string>, std::optional<std::string>> writes_;
  KeyValues records_;
  KeyValues checkpoints_;
};

}  // namespace verdict::journal
