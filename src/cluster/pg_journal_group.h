// PgJournalGroup: one group commit's writes for PgJournalBackend, buffered as the rows of
// INSERT statements (entries, the decision-id, transaction and account indexes; values are
// numbers and bytea hex literals, nothing a record could escape from) plus the account state
// writes, checkpoint and head, so that the commit sends the whole group in one round trip.
// Buffers are kept across Clear. Not thread-safe: one thread builds or commits it at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "journal/journal.h"
#include "journal/journal_backend.h"

namespace verdict::cluster {

class PgJournalGroup final : public journal::BackendGroup {
 public:
  explicit PgJournalGroup(uint32_t chain) : chain_text_(std::to_string(chain)) {}

  void Clear() override;
  void AddRecord(uint64_t seq, std::string_view stored_entry, const journal::JournalRecord& record,
                 std::string_view txn_key) override;
  void AddStateUpdate(const journal::StateUpdate& update) override;
  void AddCheckpoint(const journal::Checkpoint& checkpoint) override;
  void SetHead(const journal::JournalHead& head) override;
  size_t ByteSize() const override;

  // Appends the statements that store the group's records, indexes and account states (the
  // states stamped with `last_seq`, for a standby's catch-up), each ending in ";\n".
  void AppendStatements(uint64_t last_seq, std::string& sql) const;
  // The group's transaction keys (its decisions'), as given to AddRecord.
  const std::vector<std::string>& txn_keys() const { return txn_keys_; }
  const std::optional<std::string>& checkpoint() const { return checkpoint_; }
  uint64_t checkpoint_size() const { return checkpoint_size_; }
  // The chain's head after the group; none for a group without records.
  const std::optional<journal::JournalHead>& head() const { return head_; }

 private:
  const std::string chain_text_;
  std::string entries_;
  std::string decisions_;
  std::string transactions_;
  std::vector<std::string> txn_keys_;
  std::string accounts_;
  // State writes in the order added; the first state_count_ are this group's (the rest are
  // kept for their buffers).
  std::vector<journal::StateUpdate> state_;
  size_t state_count_ = 0;
  std::optional<std::string> checkpoint_;
  uint64_t checkpoint_size_ = 0;
  std::optional<journal::JournalHead> head_;
};

}  // namespace verdict::cluster
