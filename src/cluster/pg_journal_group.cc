#include "cluster/pg_journal_group.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "journal/checkpoint.h"
#include "journal/digest.h"
#include "journal/head.h"

namespace verdict::cluster {

void PgJournalGroup::Clear() {
  for (PgBinaryArray* column :
       {&entry_seqs_, &entries_, &decision_ids_, &decision_seqs_, &txn_keys_array_, &txn_seqs_,
        &account_tenants_, &accounts_, &account_seqs_}) {
    column->Clear();
  }
  txn_keys_.clear();
  state_count_ = 0;
  checkpoint_.reset();
  checkpoint_size_ = 0;
  head_.reset();
}

void PgJournalGroup::AddRecord(uint64_t seq, std::string_view stored_entry,
                               const journal::JournalRecord& record, std::string_view txn_key,
                               const std::vector<std::string>& indexed_accounts) {
  const auto seq_value = static_cast<int64_t>(seq);
  entry_seqs_.AddInt8(seq_value);
  entries_.AddBytes(stored_entry);
  const auto account_row = [&](std::string_view account) {
    account_tenants_.AddBytes(record.tenant);
    accounts_.AddBytes(account);
    account_seqs_.AddInt8(seq_value);
  };
  if (record.kind == journal::RecordKind::kAdminEvent) {
    account_row({});  // the tenant's admin events: the empty account, which no decision uses
    return;
  }
  const Uuid& id = record.decision.decision_id;
  decision_ids_.AddBytes(
      std::string_view(reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size()));
  decision_seqs_.AddInt8(seq_value);
  txn_keys_array_.AddBytes(txn_key);
  txn_seqs_.AddInt8(seq_value);
  txn_keys_.emplace_back(txn_key);
  for (const std::string& account : indexed_accounts) account_row(account);
}

void PgJournalGroup::AddStateUpdate(const journal::StateUpdate& update) {
  if (state_count_ == state_.size()) state_.emplace_back();
  journal::StateUpdate& slot = state_[state_count_++];
  slot.key.assign(update.key);
  slot.value.assign(update.value);
  slot.erase = update.erase;
}

void PgJournalGroup::AddCheckpoint(const journal::Checkpoint& checkpoint) {
  checkpoint_ = journal::EncodeCheckpoint(checkpoint);
  checkpoint_size_ = checkpoint.tree_size;
}

void PgJournalGroup::SetHead(const journal::JournalHead& head) { head_ = head; }

size_t PgJournalGroup::ByteSize() const {
  size_t state_bytes = 0;
  for (size_t i = 0; i < state_count_; ++i) {
    state_bytes += state_[i].key.size() + state_[i].value.size();
  }
  size_t bytes = state_bytes + (checkpoint_ ? checkpoint_->size() : 0);
  for (const PgBinaryArray* column :
       {&entry_seqs_, &entries_, &decision_ids_, &decision_seqs_, &txn_keys_array_, &txn_seqs_,
        &account_tenants_, &accounts_, &account_seqs_}) {
    bytes += column->byte_size();
  }
  return bytes;
}

std::string PgJournalGroup::CommitSql(uint32_t chain) {
  // Every part runs exactly once, on one snapshot: the parts touch different rows (one write
  // per state key, see CommitParams), so their order does not matter.
  const std::string c = std::to_string(chain);
  return "WITH entries AS (INSERT INTO verdict_journal_entries (chain, seq, entry) SELECT " + c +
         ", s, e FROM unnest($1::int8[], $2::bytea[]) AS r(s, e)),\n"
         "by_decision AS (INSERT INTO verdict_journal_by_decision (chain, decision_id, seq) "
         "SELECT " +
         c +
         ", i, s FROM unnest($3::bytea[], $4::int8[]) AS r(i, s)),\n"
         "by_transaction AS (INSERT INTO verdict_journal_by_transaction (txn_key, chain, seq) "
         "SELECT k, " +
         c +
         ", s FROM unnest($5::bytea[], $6::int8[]) AS r(k, s)),\n"
         "by_account AS (INSERT INTO verdict_journal_by_account (chain, tenant, account, seq) "
         "SELECT " +
         c +
         ", t, a, s FROM unnest($7::bytea[], $8::bytea[], $9::int8[]) AS r(t, a, s)),\n"
         // Key by key through the primary key: an empty list (nearly every group) costs nothing.
         "erased AS (DELETE FROM verdict_journal_state s USING unnest($10::bytea[]) AS r(k) "
         "WHERE s.chain = " +
         c +
         " AND s.key = r.k),\n"
         "written AS (INSERT INTO verdict_journal_state (chain, key, value, seq) SELECT " +
         c +
         ", k, v, $13 FROM unnest($11::bytea[], $12::bytea[]) AS r(k, v) "
         "ON CONFLICT (chain, key) DO UPDATE SET value = EXCLUDED.value, seq = EXCLUDED.seq),\n"
         "checkpoint AS (INSERT INTO verdict_journal_checkpoints (chain, tree_size, checkpoint) "
         "SELECT " +
         c +
         ", $14, $15 WHERE $15 IS NOT NULL "
         "ON CONFLICT (chain, tree_size) DO UPDATE SET checkpoint = EXCLUDED.checkpoint),\n"
         "head AS (UPDATE verdict_partitions SET head_seq = $16, head_hash = $17, "
         "journal_head = $18 WHERE partition = " +
         c + " AND $16 IS NOT NULL)\nSELECT 1";
}

std::vector<uint32_t> PgJournalGroup::CommitParamTypes() {
  constexpr uint32_t kInt8s = PgBinaryArray::kInt8ArrayOid;
  constexpr uint32_t kByteas = PgBinaryArray::kByteaArrayOid;
  constexpr uint32_t kInt8 = PgBinaryArray::kInt8Oid;
  constexpr uint32_t kBytea = PgBinaryArray::kByteaOid;
  return {kInt8s,  kByteas, kByteas, kInt8s, kByteas, kInt8s, kByteas, kByteas, kInt8s,
          kByteas, kByteas, kByteas, kInt8,  kInt8,   kBytea, kInt8,   kBytea,  kBytea};
}

void PgJournalGroup::CommitParams(uint64_t last_seq, std::vector<std::string>& buffers,
                                  std::vector<std::optional<std::string_view>>& params) const {
  // One write per key (a key twice in one INSERT ... ON CONFLICT is an error): the last write
  // of a key in the group decides, as applying them in order would.
  std::unordered_map<std::string_view, size_t> last_write;
  for (size_t i = 0; i < state_count_; ++i) last_write[state_[i].key] = i;
  PgBinaryArray erased(PgBinaryArray::kByteaOid);
  PgBinaryArray written_keys(PgBinaryArray::kByteaOid);
  PgBinaryArray written_values(PgBinaryArray::kByteaOid);
  for (size_t i = 0; i < state_count_; ++i) {
    const journal::StateUpdate& u = state_[i];
    if (last_write[u.key] != i) continue;
    if (u.erase) {
      erased.AddBytes(u.key);
    } else {
      written_keys.AddBytes(u.key);
      written_values.AddBytes(u.value);
    }
  }
  const PgBinaryArray* arrays[] = {&entry_seqs_,      &entries_,        &decision_ids_,
                                   &decision_seqs_,   &txn_keys_array_, &txn_seqs_,
                                   &account_tenants_, &accounts_,       &account_seqs_,
                                   &erased,           &written_keys,    &written_values};
  constexpr size_t kArrays = std::size(arrays);
  // The array buffers, then the scalars: state seq, checkpoint size, head seq, head hash, head.
  buffers.resize(kArrays + 5);
  for (size_t i = 0; i < kArrays; ++i) arrays[i]->EncodeTo(buffers[i]);
  const auto int8 = [](std::string& out, uint64_t value) {
    out.clear();
    AppendBigEndian64(out, value);
  };
  int8(buffers[kArrays], last_seq);
  int8(buffers[kArrays + 1], checkpoint_size_);
  params.clear();
  for (size_t i = 0; i <= kArrays; ++i) params.emplace_back(buffers[i]);
  if (checkpoint_) {
    params.emplace_back(buffers[kArrays + 1]);
    params.emplace_back(*checkpoint_);
  } else {
    params.emplace_back(std::nullopt);
    params.emplace_back(std::nullopt);
  }
  if (head_) {
    int8(buffers[kArrays + 2], head_->last_seq);
    buffers[kArrays + 3].assign(journal::AsBytes(head_->last_hash));
    buffers[kArrays + 4] = journal::EncodeHead(*head_);
    for (size_t i = kArrays + 2; i < kArrays + 5; ++i) params.emplace_back(buffers[i]);
  } else {
    for (int i = 0; i < 3; ++i) params.emplace_back(std::nullopt);
  }
}

}  // namespace verdict::cluster
