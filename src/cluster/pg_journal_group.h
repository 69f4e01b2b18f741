// PgJournalGroup: one group commit's writes for PgJournalBackend, buffered column by column as
// PostgreSQL arrays in binary format (PgBinaryArray): the stored entries, the decision-id,
// transaction and account indexes, the account state writes, plus the checkpoint and head. The
// commit sends them as the parameters of one prepared statement (kCommitGroupSql), so that the
// server neither lexes nor plans the records, and nothing in a record could escape its value.
// Buffers are kept across Clear. Not thread-safe: one thread builds or commits it at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/pg_binary_array.h"
#include "journal/journal.h"
#include "journal/journal_backend.h"

namespace verdict::cluster {

class PgJournalGroup final : public journal::BackendGroup {
 public:
  PgJournalGroup() = default;

  void Clear() override;
  void AddRecord(uint64_t seq, std::string_view stored_entry, const journal::JournalRecord& record,
                 std::string_view txn_key,
                 const std::vector<std::string>& indexed_accounts) override;
  void AddStateUpdate(const journal::StateUpdate& update) override;
  void AddCheckpoint(const journal::Checkpoint& checkpoint) override;
  void SetHead(const journal::JournalHead& head) override;
  size_t ByteSize() const override;

  // The statement that stores a group of chain `chain`, its parameters' types, and the
  // parameters of this group (its account states stamped with `last_seq`, for a standby's
  // catch-up). The views in `params` point into `buffers` and this group.
  static std::string CommitSql(uint32_t chain);
  static std::vector<uint32_t> CommitParamTypes();
  void CommitParams(uint64_t last_seq, std::vector<std::string>& buffers,
                    std::vector<std::optional<std::string_view>>& params) const;

  // The group's transaction keys (its decisions'), as given to AddRecord.
  const std::vector<std::string>& txn_keys() const { return txn_keys_; }
  // The chain's head after the group; none for a group without records.
  const std::optional<journal::JournalHead>& head() const { return head_; }

 private:
  PgBinaryArray entry_seqs_{PgBinaryArray::kInt8Oid};
  PgBinaryArray entries_{PgBinaryArray::kByteaOid};
  PgBinaryArray decision_ids_{PgBinaryArray::kByteaOid};
  PgBinaryArray decision_seqs_{PgBinaryArray::kInt8Oid};
  PgBinaryArray txn_keys_array_{PgBinaryArray::kByteaOid};
  PgBinaryArray txn_seqs_{PgBinaryArray::kInt8Oid};
  PgBinaryArray account_tenants_{PgBinaryArray::kByteaOid};
  PgBinaryArray accounts_{PgBinaryArray::kByteaOid};
  PgBinaryArray account_seqs_{PgBinaryArray::kInt8Oid};
  std::vector<std::string> txn_keys_;
  // State writes in the order added; the first state_count_ are this group's (the rest are
  // kept for their buffers).
  std::vector<journal::StateUpdate> state_;
  size_t state_count_ = 0;
  std::optional<std::string> checkpoint_;
  uint64_t checkpoint_size_ = 0;
  std::optional<journal::JournalHead> head_;
};

}  // namespace verdict::cluster
