#include "cluster/pg_journal_verifier.h"

#include <charconv>
#include <map>
#include <utility>

#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/index_keys.h"
#include "journal/merkle.h"
#include "journal/store.h"
#include "journal/stored_record.h"

namespace verdict::cluster {
namespace {

using journal::VerifyReport;

std::string Seq(uint64_t seq) { return std::to_string(seq); }

// A checkpoint as stored, and what is wrong with it on its own (empty: nothing).
struct StoredCheckpoint {
  journal::Checkpoint checkpoint;
  std::string problem;
};

// Decodes and checks each checkpoint's signature and order; keyed by tree size.
std::map<uint64_t, StoredCheckpoint> CheckCheckpoints(
    const std::vector<std::pair<uint64_t, std::string>>& stored,
    const std::optional<journal::PublicKey>& trusted_key) {
  std::map<uint64_t, StoredCheckpoint> out;
  int64_t last_time = INT64_MIN;
  for (const auto& [size, bytes] : stored) {
    StoredCheckpoint& slot = out[size];
    Result<journal::Checkpoint> cp = journal::DecodeCheckpoint(bytes);
    if (!cp.ok()) {
      slot.problem = "checkpoint " + Seq(size) + " is malformed";
      continue;
    }
    slot.checkpoint = *cp;
    if (cp->tree_size != size) {
      slot.problem = "checkpoint stored at tree size " + Seq(size) + " is the checkpoint of tree " +
                     "size " + Seq(cp->tree_size) + " (replaced)";
    } else if (!journal::VerifyCheckpointSignature(*cp, trusted_key.value_or(cp->public_key))) {
      slot.problem = "checkpoint " + Seq(size) + " has no valid signature by " +
                     (trusted_key ? "the trusted key" : "the key it names");
    } else if (cp->time_us < last_time) {
      slot.problem = "checkpoint " + Seq(size) + " is dated before its predecessor";
    }
    last_time = cp->time_us;
  }
  return out;
}

// What is wrong with record `seq`'s payload or the indexes leading to it (empty: nothing).
std::string CheckPayload(const PgJournalBackend& backend, std::string_view stored, uint64_t seq,
                         const journal::PayloadCipher* cipher, bool* encrypted) {
  Result<journal::EntryView> entry = journal::DecodeEntry(stored);
  *encrypted = (entry->flags & journal::kEntryFlagEncrypted) != 0;
  if (*encrypted && cipher == nullptr) return {};  // ciphertext: chain and tree checks only
  Result<journal::JournalRecord> record = journal::DecodeStoredEntry(stored, cipher);
  if (!record.ok()) return record.status().message();
  if (record->kind == journal::RecordKind::kAdminEvent) {
    bool indexed = false;
    Status scanned = backend.ScanIndex(record->tenant, {}, seq + 1, [&](uint64_t found) {
      indexed = found == seq;
      return Result<bool>(false);
    });
    return scanned.ok() && indexed ? std::string() : "admin event index lacks this record";
  }
  if (journal::Sha256(record->canonical_input) != record->input_sha256) {
    return "input_sha256 does not match canonical_input";
  }
  Result<std::optional<uint64_t>> by_id = backend.FindByDecisionId(record->decision.decision_id);
  if (!by_id.ok() || *by_id != seq) return "decision id index does not point at this record";
  Result<std::optional<uint64_t>> by_txn = backend.FindByTransaction(
      journal::IndexedTransactionKey(cipher, record->tenant, record->decision.transaction_id));
  if (!by_txn.ok() || *by_txn != seq) return "transaction index does not point at this record";
  return {};
}

// Walks a chain's records in order: sequence, links, payloads, the tree at each checkpoint.
class ChainWalk {
 public:
  ChainWalk(const PgJournalBackend& backend, const std::map<uint64_t, StoredCheckpoint>& cps,
            const journal::PayloadCipher* cipher, bool check_payloads)
      : backend_(backend), checkpoints_(cps), cipher_(cipher), check_payloads_(check_payloads) {}

  bool Next(uint64_t stored_seq, std::string_view stored) {
    const uint64_t seq = report_.records + 1;
    if (stored_seq != seq) return Fail(seq, "record " + Seq(seq) + " is missing");
    Result<journal::EntryView> entry = journal::DecodeEntry(stored);
    if (!entry.ok()) return Fail(seq, "record " + Seq(seq) + ": " + entry.status().message());
    if (entry->seq != seq) {
      return Fail(seq, "record " + Seq(seq) + " holds the entry of record " + Seq(entry->seq));
    }
    if (entry->prev_hash != prev_) {
      return Fail(seq, "record " + Seq(seq) + " does not link to the record before it");
    }
    bool encrypted = (entry->flags & journal::kEntryFlagEncrypted) != 0;
    if (check_payloads_) {
      const std::string problem = CheckPayload(backend_, stored, seq, cipher_, &encrypted);
      if (!problem.empty()) return Fail(seq, "record " + Seq(seq) + ": " + problem);
    }
    if (encrypted) ++report_.encrypted_records;
    merkle_.AppendLeafHash(journal::MerkleLeafHash(journal::AsBytes(entry->record_hash)));
    prev_ = entry->record_hash;
    if (auto it = checkpoints_.find(seq); it != checkpoints_.end()) {
      if (!it->second.problem.empty()) return Fail(seq, it->second.problem);
      if (it->second.checkpoint.root != merkle_.Root()) {
        return Fail(seq, "checkpoint " + Seq(seq) + ": Merkle root differs from the records");
      }
      if (it->second.checkpoint.last_record_hash != prev_) {
        return Fail(seq, "checkpoint " + Seq(seq) + ": last record hash differs from the records");
      }
      ++report_.checkpoints;
    }
    report_.records = seq;
    report_.last_hash = prev_;
    report_.root = merkle_.Root();
    return true;
  }

  // After the last record: no checkpoint beyond it, and the head names it.
  bool Finish() {
    const uint64_t count = report_.records;
    if (auto beyond = checkpoints_.upper_bound(count); beyond != checkpoints_.end()) {
      return Fail(count + 1, "checkpoint " + Seq(beyond->first) +
                                 " covers records beyond the last (" + Seq(count) +
                                 "): records were removed from the end");
    }
    Result<std::optional<journal::JournalHead>> head = backend_.ReadHead();
    if (!head.ok())
      return Fail(count, "the journal head is unreadable: " + head.status().message());
    if (!*head && count != 0) return Fail(count, "the journal head is missing");
    if (!*head) {
      report_.ok = true;
      return true;
    }
    if ((*head)->last_seq != count) {
      return Fail(std::min((*head)->last_seq, count) + 1,
                  "the journal head names " + Seq((*head)->last_seq) +
                      " records but the journal holds " + Seq(count) + " (truncated or extended)");
    }
    if ((*head)->last_hash != prev_ || (*head)->merkle.Root() != report_.root) {
      return Fail(count, "the journal head does not match the last record");
    }
    report_.ok = true;
    return true;
  }

  bool Fail(uint64_t seq, std::string problem) {
    report_.ok = false;
    report_.first_bad_seq = seq;
    report_.problem = std::move(problem);
    return false;
  }

  VerifyReport& report() { return report_; }

 private:
  const PgJournalBackend& backend_;
  const std::map<uint64_t, StoredCheckpoint>& checkpoints_;
  const journal::PayloadCipher* cipher_;
  const bool check_payloads_;
  journal::CompactMerkle merkle_;
  journal::Digest prev_ = journal::kGenesisHash;
  VerifyReport report_;
};

// The chains with a journal: a head in the fence row, or records (a head removed by hand).
Result<std::vector<uint32_t>> ListChains(const std::string& url) {
  VERDICT_ASSIGN_OR_RETURN(
      std::unique_ptr<PgConnection> db,
      PgConnection::Connect(WithTimeouts(url), PgJournalBackend::answer_timeout()));
  VERDICT_ASSIGN_OR_RETURN(
      PgRows rows, db->Exec("SELECT partition FROM verdict_partitions p WHERE journal_head IS NOT "
                            "NULL OR EXISTS (SELECT 1 FROM verdict_journal_entries e "
                            "WHERE e.chain = p.partition) ORDER BY partition"));
  std::vector<uint32_t> chains;
  for (int i = 0; i < rows.size(); ++i) {
    uint32_t chain = 0;
    const std::string_view text = rows.Get(i, 0);
    std::from_chars(text.data(), text.data() + text.size(), chain);
    chains.push_back(chain);
  }
  return chains;
}

}  // namespace

Result<VerifyReport> VerifyPgChain(const PgJournalBackend& backend,
                                   const std::optional<journal::PublicKey>& trusted_key,
                                   const journal::PayloadCipher* cipher, bool check_payloads) {
  VERDICT_ASSIGN_OR_RETURN(auto stored, backend.ListCheckpoints());
  const std::map<uint64_t, StoredCheckpoint> checkpoints = CheckCheckpoints(stored, trusted_key);
  ChainWalk walk(backend, checkpoints, cipher, check_payloads);
  bool good = true;
  VERDICT_RETURN_IF_ERROR(
      backend.ScanEntries(1, [&](uint64_t seq, std::string_view entry) -> Result<bool> {
        good = walk.Next(seq, entry);
        return good;
      }));
  if (good) walk.Finish();
  return walk.report();
}

Result<std::vector<ChainReport>> VerifyPgJournal(const PgVerifyOptions& options) {
  VERDICT_ASSIGN_OR_RETURN(std::vector<uint32_t> chains, ListChains(options.url));
  std::vector<ChainReport> out;
  for (uint32_t chain : chains) {
    VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<PgJournalBackend> backend,
                             PgJournalBackend::OpenReadOnly(options.url, chain));
    std::unique_ptr<journal::PayloadCipher> cipher;
    if (!options.kek_file.empty()) {
      VERDICT_ASSIGN_OR_RETURN(cipher, journal::PayloadCipher::FromKekFile(options.kek_file));
      uint32_t max_id = 0;
      VERDICT_RETURN_IF_ERROR(backend->LoadDataKeys(*cipher, &max_id));
    }
    VERDICT_ASSIGN_OR_RETURN(
        VerifyReport report,
        VerifyPgChain(*backend, options.trusted_public_key, cipher.get(), options.check_payloads));
    out.push_back({chain, std::move(report)});
  }
  return out;
}

}  // namespace verdict::cluster
