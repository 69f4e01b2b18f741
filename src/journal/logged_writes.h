// LoggedWrites: the writes of the commit log's frames that continue the store, held in memory
// over it: the journal as the engine's next start would leave it, read without writing anything
// (for the offline verify). Only what a group commit writes is accepted (CheckGroupBatch).
// Not thread-safe; borrows the store, which must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "journal/commit_log.h"
#include "journal/group_batch.h"
#include "journal/store.h"

namespace verdict::journal {

class LoggedWrites {
 public:
  explicit LoggedWrites(const JournalStore& store) : store_(store) {}

  // Adds a frame's writes, or the reason its payload is not its group's batch (CheckGroupBatch;
  // nothing of it is added then).
  Status Add(const CommitLogFrame& frame);

  // A key of the index and meta column families, as the frames left it, else the store's.
  Result<std::optional<std::string>> Get(Cf cf, std::string_view key) const;

  // The records and checkpoints put, in the frames' order, as (key, value).
  using KeyValues = std::vector<std::pair<std::string, std::string>>;
  const KeyValues& records() const { return records_; }
  const KeyValues& checkpoints() const { return checkpoints_; }

 private:
  uint32_t Id(Cf cf) const { return store_.handle(cf)->GetID(); }

  const JournalStore& store_;
  std::map<std::pair<uint32_t, std::string>, std::optional<std::string>> writes_;
  KeyValues records_;
  KeyValues checkpoints_;
};

}  // namespace verdict::journal
