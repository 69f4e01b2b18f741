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
  last_write_.clear();
  state_rows_.clear();
  checkpoint_.reset();
  checkpoint_size_ = 0;
  head_.reset();
}

void PgJournalGroup::AddRecord(uint64_t seq, std::string_view stored_entry,
                               const journal::JournalRecord& record, std::string_view txn_key) {
  const std::string seq_text = std::to_string(seq);
  entries_.append(chain_prefix_).append(seq_text).push_back('\t');
  AppendCopyBytea(entries_, stored_entry);
  entries_.push_back('\n');
  if (record.kind == journal::RecordKind::kAdminEvent) {
    // The tenant's admin events: the empty account, which no decision uses.
    accounts_.append(chain_prefix_);
    AppendCopyBytea(accounts_, record.tenant);
    accounts_.push_back('\t');
    AppendCopyBytea(accounts_, {});
    accounts_.append("\t").append(seq_text).push_back('\n');
    return;
  }
  const Uuid& id = record.decision.decision_id;
  decisions_.append(chain_prefix_);
  AppendCopyBytea(decisions_, std::string_view(reinterpret_cast<const char*>(id.bytes.data()),
                                               id.bytes.size()));
  decisions_.append("\t").append(seq_text).push_back('\n');
  AppendCopyBytea(transactions_, txn_key);
  txn_keys_.emplace_back(txn_key);
  transactions_.append("\t").append(chain_prefix_).append(seq_text).push_back('\n');
  const std::vector<std::string>& accounts = record.accounts;
  for (auto account = accounts.begin(); account != accounts.end(); ++account) {
    if (std::find(accounts.begin(), account, *account) != account) {
      continue;  // sender == receiver: one index entry
    }
    accounts_.append(chain_prefix_);
    AppendCopyBytea(accounts_, record.tenant);
    accounts_.push_back('\t');
    AppendCopyBytea(accounts_, *account);
    accounts_.append("\t").append(seq_text).push_back('\n');
  }
}

void PgJournalGroup::AddStateUpdate(const journal::StateUpdate& update) {
  if (state_count_ == state_.size()) state_.emplace_back();
  journal::StateUpdate& slot = state_[state_count_++];
  slot.key.assign(update.key);
  slot.value.assign(update.value);
  slot.erase = update.erase;
}

const std::string& PgJournalGroup::StateRows() {
  if (!state_rows_.empty() || state_count_ == 0) return state_rows_;
  // One row per key (a key written twice in one COPY would be two rows for one primary key).
  for (size_t i = 0; i < state_count_; ++i) last_write_[state_[i].key] = i;
  for (size_t i = 0; i < state_count_; ++i) {
    const journal::StateUpdate& u = state_[i];
    if (last_write_[u.key] != i) continue;
    AppendCopyBytea(state_rows_, u.key);
    state_rows_.push_back('\t');
    AppendCopyBytea(state_rows_, u.erase ? std::string_view() : std::string_view(u.value));
    state_rows_.append(u.erase ? "\tt\n" : "\tf\n");
  }
  return state_rows_;
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
