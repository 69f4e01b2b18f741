#include "cluster/pg_journal_group.h"

#include <algorithm>

#include "cluster/pg_connection.h"

namespace verdict::cluster {

void PgJournalGroup::Clear() {
  entries_.clear();
  decisions_.clear();
  transactions_.clear();
  txn_keys_.clear();
  accounts_.clear();
  state_count_ = 0;
  checkpoint_.reset();
  checkpoint_size_ = 0;
  head_.reset();
}

void PgJournalGroup::AddRecord(uint64_t seq, std::string_view stored_entry,
                               const journal::JournalRecord& record, std::string_view txn_key) {
  const std::string seq_text = std::to_string(seq);
  // Each table's rows as ",(v1,v2,...)": the first comma is dropped when the statement is made.
  entries_.append(",(").append(chain_text_).append(",").append(seq_text).push_back(',');
  AppendSqlBytea(entries_, stored_entry);
  entries_.push_back(')');
  const auto account_row = [&](std::string_view account) {
    accounts_.append(",(").append(chain_text_).push_back(',');
    AppendSqlBytea(accounts_, record.tenant);
    accounts_.push_back(',');
    AppendSqlBytea(accounts_, account);
    accounts_.append(",").append(seq_text).push_back(')');
  };
  if (record.kind == journal::RecordKind::kAdminEvent) {
    account_row({});  // the tenant's admin events: the empty account, which no decision uses
    return;
  }
  const Uuid& id = record.decision.decision_id;
  decisions_.append(",(").append(chain_text_).push_back(',');
  AppendSqlBytea(decisions_,
                 std::string_view(reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size()));
  decisions_.append(",").append(seq_text).push_back(')');
  transactions_.append(",(");
  AppendSqlBytea(transactions_, txn_key);
  transactions_.append(",").append(chain_text_).append(",").append(seq_text).push_back(')');
  txn_keys_.emplace_back(txn_key);
  const std::vector<std::string>& accounts = record.accounts;
  for (auto account = accounts.begin(); account != accounts.end(); ++account) {
    if (std::find(accounts.begin(), account, *account) != account) {
      continue;  // sender == receiver: one index entry
    }
    account_row(*account);
  }
}

void PgJournalGroup::AddStateUpdate(const journal::StateUpdate& update) {
  if (state_count_ == state_.size()) state_.emplace_back();
  journal::StateUpdate& slot = state_[state_count_++];
  slot.key.assign(update.key);
  slot.value.assign(update.value);
  slot.erase = update.erase;
}

void PgJournalGroup::AppendStatements(uint64_t last_seq, std::string& sql) const {
  const auto insert = [&sql](std::string_view head, const std::string& rows) {
    if (rows.empty()) return;
    sql.append(head).append(" VALUES ").append(std::string_view(rows).substr(1)).append(";\n");
  };
  insert("INSERT INTO verdict_journal_entries (chain, seq, entry)", entries_);
  insert("INSERT INTO verdict_journal_by_decision (chain, decision_id, seq)", decisions_);
  insert("INSERT INTO verdict_journal_by_transaction (txn_key, chain, seq)", transactions_);
  insert("INSERT INTO verdict_journal_by_account (chain, tenant, account, seq)", accounts_);
  if (state_count_ == 0) return;
  // One write per key (a key twice in one INSERT ... ON CONFLICT is an error): the last write
  // of a key in the group decides, as applying them in order would.
  std::unordered_map<std::string_view, size_t> last_write;
  for (size_t i = 0; i < state_count_; ++i) last_write[state_[i].key] = i;
  std::string erased;
  std::string written;
  const std::string seq_text = std::to_string(last_seq);
  for (size_t i = 0; i < state_count_; ++i) {
    const journal::StateUpdate& u = state_[i];
    if (last_write[u.key] != i) continue;
    if (u.erase) {
      erased.push_back(',');
      AppendSqlBytea(erased, u.key);
      continue;
    }
    written.append(",(").append(chain_text_).push_back(',');
    AppendSqlBytea(written, u.key);
    written.push_back(',');
    AppendSqlBytea(written, u.value);
    written.append(",").append(seq_text).push_back(')');
  }
  if (!erased.empty()) {
    sql.append("DELETE FROM verdict_journal_state WHERE chain = ")
        .append(chain_text_)
        .append(" AND key IN (")
        .append(std::string_view(erased).substr(1))
        .append(");\n");
  }
  if (!written.empty()) {
    sql.append("INSERT INTO verdict_journal_state (chain, key, value, seq) VALUES ")
        .append(std::string_view(written).substr(1))
        .append(
            " ON CONFLICT (chain, key) DO UPDATE SET value = EXCLUDED.value, seq = "
            "EXCLUDED.seq;\n");
  }
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
  return entries_.size() + decisions_.size() + transactions_.size() + accounts_.size() +
         state_bytes + (checkpoint_ ? checkpoint_->size() : 0);
}

}  // namespace verdict::cluster
