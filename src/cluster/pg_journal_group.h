// PgJournalGroup: one group commit's writes for PgJournalBackend, buffered as rows in COPY's
// text format (entries, the decision-id, transaction and account indexes) plus the account
// state writes, checkpoint and head, so the commit sends each table in one COPY. Buffers are
// kept across Clear. Not thread-safe: one thread builds or commits it at a time.
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
  explicit PgJournalGroup(uint32_t chain) : chain_prefix_(std::to_string(chain) + "\t") {}

  void Clear() override;
  void AddRecord(uint64_t seq, std::string_view stored_entry, const journal::JournalRecord& record,
                 std::string_view txn_key) override;
  void AddStateUpdate(const journal::StateUpdate& update) override;
  void AddCheckpoint(const journal::Checkpoint& checkpoint) override;
  void SetHead(const journal::JournalHead& head) override;
  size_t ByteSize() const override;

  // COPY rows: (chain, seq, entry), (chain, decision_id, seq), (txn_key, chain, seq),
  // (chain, tenant, account, seq).
  const std::string& entries() const { return entries_; }
  const std::string& decisions() const { return decisions_; }
  const std::string& transactions() const { return transactions_; }
  // The group's transaction keys (its decisions'), as given to AddRecord.
  const std::vector<std::string>& txn_keys() const { return txn_keys_; }
  const std::string& accounts() const { return accounts_; }
  // The state writes as COPY rows (key, value, erase) with one row per key: the last write of a
  // key in the group decides, as applying them in order would. Empty when there are none.
  const std::string& StateRows();
  const std::optional<std::string>& checkpoint() const { return checkpoint_; }
  uint64_t checkpoint_size() const { return checkpoint_size_; }
  // The chain's head after the group; none for a group without records.
  const std::optional<journal::JournalHead>& head() const { return head_; }

 private:
  const std::string chain_prefix_;  // "<chain>\t"
  std::string entries_;
  std::string decisions_;
  std::string transactions_;
  std::vector<std::string> txn_keys_;
  std::string accounts_;
  // State writes in the order added; the first state_count_ are this group's (the rest are
  // kept for their buffers).
  std::vector<journal::StateUpdate> state_;
  size_t state_count_ = 0;
  std::unordered_map<std::string_view, size_t> last_write_;
  std::string state_rows_;
  std::optional<std::string> checkpoint_;
  uint64_t checkpoint_size_ = 0;
  std::optional<journal::JournalHead> head_;
};

}  // namespace verdict::cluster
