// The journal's read API: committed records by sequence, decision id, transaction (with the
// pending ones), account and tenant (admin events); account state; checkpoints and inclusion
// proofs. Reads go to the backend and never wait for group commit.
//
// A stored record that cannot be read back (the store fails, its bytes do not decode or
// decrypt, an index points at nothing) is the server's fault whatever the request was: every
// read here answers it with a code of its own and a message naming the object, while the
// cause, in the store's or the decoder's words, goes to the log only (ReadFailure).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "journal/envelope.h"
#include "journal/group_commit.h"
#include "journal/hash_chain.h"
#include "journal/index_keys.h"
#include "journal/journal.h"
#include "journal/journal_backend.h"
#include "journal/store.h"
#include "journal/stored_record.h"

namespace verdict::journal {
namespace {

// What a caller is told when `what` cannot be read: kUnavailable once the journal has failed
// closed (a restart recovers it; until then nothing it holds is vouched for), else kDataLoss.
// Neither carries `cause`'s message, which may quote the store (RocksDB's or PostgreSQL's text).
Status ReadFailure(const Journal& journal, const Status& cause, const std::string& what) {
  spdlog::error("journal: {} cannot be read: {}", what, cause.ToString());
  if (!journal.healthy()) {
    return Unavailable("the journal has failed closed: " + what +
                       " cannot be read until the engine restarts");
  }
  return DataLoss(what + " cannot be read back from the journal");
}

// An index entry under `key` that reaches record `seq`, which is missing or is not indexed
// under that key: the entry was edited (indexes are not covered by the hash chain), and what it
// leads to is not answered.
Status MisleadingIndexEntry(std::string_view index, const std::string& key, uint64_t seq) {
  const std::string what = "the " + std::string(index) + " index entry of " + key +
                           " points at journal record " + std::to_string(seq);
  spdlog::error("journal: {}, which is missing or is not indexed under it", what);
  return DataLoss(what + ", which is not the record it names");
}

// Whether `record` belongs under the (tenant, account) index key; the empty account is the
// tenant's admin events'.
bool IndexedUnder(const std::optional<JournalRecord>& record, std::string_view tenant,
                  std::string_view account) {
  if (!record || record->tenant != tenant) return false;
  if (account.empty()) return record->kind == RecordKind::kAdminEvent;
  return record->kind != RecordKind::kAdminEvent &&
         std::find(record->accounts.begin(), record->accounts.end(), account) !=
             record->accounts.end();
}

}  // namespace

Result<std::optional<JournalRecord>> Journal::DecodeRecordAt(uint64_t seq) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> stored, backend_->ReadEntry(seq));
  if (!stored) return std::optional<JournalRecord>();
  VERDICT_ASSIGN_OR_RETURN(JournalRecord record, DecodeStoredEntry(*stored, cipher_.get()));
  if (record.seq != seq) {
    return Internal("journal record " + std::to_string(seq) + " is stored under a wrong key");
  }
  return std::optional<JournalRecord>(std::move(record));
}

Result<std::optional<JournalRecord>> Journal::ReadRecord(uint64_t seq) const {
  Result<std::optional<JournalRecord>> record = DecodeRecordAt(seq);
  if (!record.ok()) {
    return ReadFailure(*this, record.status(), "journal record " + std::to_string(seq));
  }
  return record;
}

Result<std::optional<JournalRecord>> Journal::FindByDecisionId(const Uuid& decision_id) const {
  Result<std::optional<uint64_t>> seq = backend_->FindByDecisionId(decision_id);
  if (!seq.ok()) return ReadFailure(*this, seq.status(), "the decision id index");
  if (!*seq) return std::optional<JournalRecord>();
  VERDICT_ASSIGN_OR_RETURN(std::optional<JournalRecord> record, ReadRecord(**seq));
  // An index entry is not covered by the chain: the record it reaches must be the one asked
  // for, or an edited entry would answer one decision id with another decision.
  if (!record || record->kind == RecordKind::kAdminEvent ||
      record->decision.decision_id != decision_id) {
    return MisleadingIndexEntry("decision id", decision_id.ToString(), **seq);
  }
  return record;
}

Result<std::optional<StoredRecord>> Journal::FindByTransaction(
    std::string_view tenant, std::string_view transaction_id) const {
  std::string key = IndexedTransactionKey(cipher_.get(), tenant, transaction_id);
  if (std::optional<JournalRecord> pending = commit_->FindPending(key)) {
    return std::optional<StoredRecord>(StoredRecord{std::move(*pending), false});
  }
  Result<std::optional<uint64_t>> seq = backend_->FindByTransaction(key);
  if (!seq.ok()) return ReadFailure(*this, seq.status(), "the transaction index");
  if (!*seq) return std::optional<StoredRecord>();
  VERDICT_ASSIGN_OR_RETURN(std::optional<JournalRecord> record, ReadRecord(**seq));
  if (!record || record->kind == RecordKind::kAdminEvent || record->tenant != tenant ||
      record->decision.transaction_id != transaction_id) {
    return MisleadingIndexEntry("transaction",
                                std::string(tenant) + "/" + std::string(transaction_id), **seq);
  }
  return std::optional<StoredRecord>(StoredRecord{std::move(*record), true});
}

Result<IdempotencyCheck> Journal::CheckIdempotency(std::string_view tenant,
                                                   std::string_view transaction_id,
                                                   std::string_view canonical_input) const {
  VERDICT_ASSIGN_OR_RETURN(std::optional<StoredRecord> existing,
                           FindByTransaction(tenant, transaction_id));
  IdempotencyCheck check;
  if (!existing) return check;
  check.verdict = existing->record.input_sha256 == Sha256(canonical_input) ? Idempotency::kReplay
                                                                           : Idempotency::kConflict;
  check.existing = std::move(existing);
  return check;
}

Result<std::vector<JournalRecord>> Journal::ListAdminEvents(std::string_view tenant, size_t limit,
                                                            uint64_t before_seq) const {
  return ListIndexed(tenant, {}, limit, before_seq);
}

Result<std::vector<std::string>> Journal::AdminTenants() const { return backend_->AdminTenants(); }

Result<std::vector<JournalRecord>> Journal::ListByAccount(std::string_view tenant,
                                                          std::string_view account, size_t limit,
                                                          uint64_t before_seq) const {
  if (account.empty()) return std::vector<JournalRecord>{};  // the admin events' index
  return ListIndexed(tenant, account, limit, before_seq);
}

Result<std::vector<JournalRecord>> Journal::ListIndexed(std::string_view tenant,
                                                        std::string_view account, size_t limit,
                                                        uint64_t before_seq) const {
  std::vector<JournalRecord> out;
  if (limit == 0 || before_seq <= 1) return out;
  Status record_failure;  // a record the index named could not be read (already answered)
  const std::string indexed_account =
      account.empty() ? std::string() : IndexedAccount(cipher_.get(), tenant, account);
  Status scanned =
      backend_->ScanIndex(tenant, indexed_account, before_seq, [&](uint64_t seq) -> Result<bool> {
        Result<std::optional<JournalRecord>> record = ReadRecord(seq);
        if (!record.ok()) {
          record_failure = record.status();
          return record_failure;
        }
        if (!IndexedUnder(*record, tenant, account)) {
          record_failure =
              MisleadingIndexEntry(account.empty() ? "admin event" : "account",
                                   std::string(tenant) + "/" + std::string(account), seq);
          return record_failure;
        }
        out.push_back(std::move(**record));
        return out.size() < limit;
      });
  if (!record_failure.ok()) return record_failure;
  if (!scanned.ok()) {
    return ReadFailure(*this, scanned,
                       account.empty() ? "the admin event index" : "the account index");
  }
  return out;
}

Result<std::optional<std::string>> Journal::GetAccountState(std::string_view key) const {
  return backend_->GetState(key);
}

Status Journal::ForEachAccountState(
    const std::function<Status(std::string_view key, std::string_view value)>& fn) const {
  return backend_->ForEachState(fn);
}

Result<std::optional<Checkpoint>> Journal::LatestCheckpoint() const {
  Result<std::optional<Checkpoint>> checkpoint = backend_->LatestCheckpoint();
  if (!checkpoint.ok()) return ReadFailure(*this, checkpoint.status(), "the latest checkpoint");
  return checkpoint;
}

Result<InclusionProof> Journal::ProveInclusion(uint64_t seq, uint64_t tree_size) const {
  if (seq == 0 || seq > tree_size || tree_size > durable_sequence()) {
    return InvalidArgument("need 1 <= seq <= tree_size <= durable sequence");
  }
  std::vector<Digest> leaves;
  leaves.reserve(tree_size);
  uint64_t expected = 1;
  Status scanned =
      backend_->ScanEntries(1, [&](uint64_t stored_seq, std::string_view stored) -> Result<bool> {
        if (stored_seq != expected) {
          return Internal("journal record " + std::to_string(expected) + " is missing");
        }
        VERDICT_ASSIGN_OR_RETURN(EntryView entry, DecodeEntry(stored));
        leaves.push_back(MerkleLeafHash(AsBytes(entry.record_hash)));
        ++expected;
        return expected <= tree_size;
      });
  if (scanned.ok() && leaves.size() != tree_size) {
    scanned = Internal("the journal has fewer records than its head");
  }
  if (!scanned.ok()) {
    return ReadFailure(*this, scanned, "the records up to checkpoint " + std::to_string(tree_size));
  }
  InclusionProof proof;
  proof.seq = seq;
  proof.tree_size = tree_size;
  proof.leaf_hash = leaves[seq - 1];
  proof.path = MerkleInclusionProof(leaves, seq - 1);
  proof.root = MerkleRoot(leaves);
  return proof;
}

}  // namespace verdict::journal
