// Engine::ApplyHistory: one transaction of imported history applied to account state and
// journaled as a history record, under the same stripe locks and with the same update code as a
// decision (decide.cc's JournalDecision), so that a later decision's features are those it
// would have had had the engine decided the history itself (I3). Thread-safe like Decide.
#include "api/transaction_json.h"
#include "engine/engine.h"
#include "engine/stored_state.h"
#include "features/account_state_codec.h"
#include "features/feature_extractor.h"

namespace verdict {

Status Engine::ApplyHistory(const Transaction& txn, uint64_t input_position, const Caller& caller,
                            journal::CommitCallback done) {
  if (!journal_->healthy()) return journal_->health();
  journal::JournalEntry entry;
  journal::JournalRecord& record = entry.record;
  record.kind = journal::RecordKind::kHistory;
  record.decided_at_us = clock_.NowMicros();  // when it was imported
  record.timestamp_us = txn.timestamp_us;
  record.tenant = caller.tenant;
  record.principal = caller.principal;
  record.canonical_input = CanonicalTransactionJson(txn);
  record.input_position = input_position;
  record.decision.decision_id = ids_.Next();  // the record's own id
  record.decision.transaction_id = txn.transaction_id;
  record.accounts = {txn.sender.ref.account};
  const std::string sender_key = TenantAccountKey(caller.tenant, txn.sender.ref.account);
  const std::string receiver_key = TenantAccountKey(caller.tenant, txn.receiver.ref.account);
  Status result = Status::Ok();
  accounts_.WithAccounts(
      sender_key, receiver_key, [&](AccountState& sender, AccountState& receiver) {
        // Applied and enqueued under the same locks: journal order is state order (I2). A refusal
        // puts both accounts back as they were.
        const bool same_account = &sender == &receiver;
        AccountState sender_before = sender;
        std::optional<AccountState> receiver_before;
        if (!same_account) {
          receiver_before = receiver;
          record.accounts.push_back(txn.receiver.ref.account);
        }
        ApplyTransaction(txn, sender, receiver);
        const journal::StateSealer* sealer = journal_->state_sealer();
        entry.state_updates.push_back(StoredStateUpdate(sealer, sender_key, sender));
        if (!same_account) {
          entry.state_updates.push_back(StoredStateUpdate(sealer, receiver_key, receiver));
        }
        Result<uint64_t> enqueued = journal_->Enqueue(std::move(entry), std::move(done));
        if (enqueued.ok()) return;
        sender = std::move(sender_before);
        if (receiver_before) receiver = std::move(*receiver_before);
        result = enqueued.status();
      });
  return result;
}

}  // namespace verdict
