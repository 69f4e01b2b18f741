#include "journal/verifier.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "common/json_writer.h"
#include "journal/commit_log.h"
#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/index_audit.h"
#include "journal/index_keys.h"
#include "journal/logged_writes.h"
#include "journal/merkle.h"
#include "journal/record.h"
#include "journal/state_seal.h"
#include "journal/stored_record.h"

namespace verdict::journal {
namespace {

struct CheckpointSlot {
  std::optional<Checkpoint> checkpoint;
  std::string problem;  // set when the checkpoint is bad on its own
};
using Checkpoints = std::map<uint64_t, CheckpointSlot>;

VerifyReport Bad(VerifyReport report, uint64_t seq, std::string problem) {
  report.ok = false;
  report.first_bad_seq = seq;
  report.problem = std::move(problem);
  return report;
}

std::string Seq(uint64_t seq) { return std::to_string(seq); }

// Each checkpoint must be well-formed, stored under its own tree size, signed by the trusted key,
// and not older than the one before it (they are added in key order).
void AddCheckpoint(uint64_t key_size, std::string_view bytes, const PublicKey& trusted_key,
                   int64_t& last_time, Checkpoints& checkpoints) {
  CheckpointSlot& slot = checkpoints[key_size];
  Result<Checkpoint> cp = DecodeCheckpoint(bytes);
  if (!cp.ok()) {
    slot.problem = "checkpoint " + Seq(key_size) + " is malformed";
  } else if (cp->tree_size != key_size) {
    slot.problem = "checkpoint stored at tree size " + Seq(key_size) + " is the checkpoint of " +
                   "tree size " + Seq(cp->tree_size) + " (replaced)";
  } else if (!VerifyCheckpointSignature(*cp, trusted_key)) {
    slot.problem = "checkpoint " + Seq(key_size) + " has no valid signature by the trusted key";
  } else if (cp->time_us < last_time) {
    slot.problem = "checkpoint " + Seq(key_size) + " is dated before its predecessor";
  }
  if (cp.ok()) {
    slot.checkpoint = *cp;
    last_time = cp->time_us;
  }
}

// Checks the payload of record `seq` and that the indexes lead back to it; adds its index
// entries to `counts`.
std::string CheckPayload(const LoggedWrites& journal, std::string_view stored, uint64_t seq,
                         const PayloadCipher* cipher, bool* encrypted, IndexCounts* counts) {
  Result<EntryView> entry = DecodeEntry(stored);
  *encrypted = (entry->flags & kEntryFlagEncrypted) != 0;
  if (*encrypted && cipher == nullptr) return {};  // ciphertext: chain and tree checks only
  Result<JournalRecord> record = DecodeStoredEntry(stored, cipher);
  if (!record.ok()) return record.status().message();
  counts->Add(*record);
  std::string seq_key = SeqKey(seq);
  if (record->kind == RecordKind::kAdminEvent) {
    Result<std::optional<std::string>> indexed =
        journal.Get(Cf::kByAccount, AdminEventKey(record->tenant, seq));
    if (!indexed.ok() || !indexed->has_value()) return "admin event index lacks this record";
    return {};
  }
  if (Sha256(record->canonical_input) != record->input_sha256) {
    return "input_sha256 does not match canonical_input";
  }
  const Uuid& id = record->decision.decision_id;
  Result<std::optional<std::string>> by_id = journal.Get(
      Cf::kByDecision, std::string_view(reinterpret_cast<const char*>(id.bytes.data()), 16));
  if (!by_id.ok() || !by_id->has_value() || **by_id != seq_key) {
    return "decision id index does not point at this record";
  }
  Result<std::optional<std::string>> by_txn =
      journal.Get(Cf::kByTransaction,
                  IndexedTransactionKey(cipher, record->tenant, record->decision.transaction_id));
  if (!by_txn.ok() || !by_txn->has_value() || **by_txn != seq_key) {
    return "transaction index does not point at this record";
  }
  for (const std::string& account : record->accounts) {
    Result<std::optional<std::string>> by_account = journal.Get(
        Cf::kByAccount,
        AccountKey(record->tenant, IndexedAccount(cipher, record->tenant, account), seq));
    if (!by_account.ok() || !by_account->has_value()) {
      return "account index lacks this record under account " + account;
    }
  }
  return {};
}

// Walks the records in order: sequence, hash chain, payload and indexes, and the Merkle tree at
// each checkpoint.
class ChainWalk {
 public:
  ChainWalk(const LoggedWrites& journal, const Checkpoints& checkpoints,
            const PayloadCipher* cipher, bool check_payloads)
      : journal_(journal),
        checkpoints_(checkpoints),
        cipher_(cipher),
        check_payloads_(check_payloads) {}

  // Checks the next record, stored under `key`; false at the first bad one (report() says why).
  bool Next(std::string_view key, std::string_view stored) {
    const uint64_t seq = report_.records + 1;
    const uint64_t key_seq = ParseSeqKey(key);
    if (key_seq == 0) return Fail(seq, "a record is stored under a malformed key");
    if (key_seq != seq) return Fail(seq, "record " + Seq(seq) + " is missing");
    Result<EntryView> entry = DecodeEntry(stored);
    if (!entry.ok()) return Fail(seq, "record " + Seq(seq) + ": " + entry.status().message());
    if (entry->seq != seq) {
      return Fail(seq, "record " + Seq(seq) + " holds the entry of record " + Seq(entry->seq) +
                           " (reordered or duplicated)");
    }
    if (entry->prev_hash != prev_) {
      return Fail(seq, "record " + Seq(seq) + " does not link to the record before it");
    }
    if (check_payloads_) {
      bool encrypted = false;
      std::string problem =
          CheckPayload(journal_, stored, seq, cipher_, &encrypted, &index_counts_);
      if (!problem.empty()) return Fail(seq, "record " + Seq(seq) + ": " + problem);
      if (encrypted) {
        ++report_.encrypted_records;
        indexes_counted_ = false;
      }
    } else if ((entry->flags & kEntryFlagEncrypted) != 0) {
      ++report_.encrypted_records;
    }
    merkle_.AppendLeafHash(MerkleLeafHash(AsBytes(entry->record_hash)));
    prev_ = entry->record_hash;
    // Checkpoints strictly inside this record's range cannot exist (keys are sizes); check the
    // one at exactly this size.
    if (auto checkpoint = checkpoints_.find(seq); checkpoint != checkpoints_.end()) {
      const CheckpointSlot& slot = checkpoint->second;
      if (!slot.problem.empty()) return Fail(seq, slot.problem);
      if (slot.checkpoint->root != merkle_.Root()) {
        return Fail(seq, "checkpoint " + Seq(seq) + ": Merkle root differs from the records");
      }
      if (slot.checkpoint->last_record_hash != prev_) {
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
    Result<std::optional<std::string>> head_bytes = journal_.Get(Cf::kMeta, kMetaHeadKey);
    if (!head_bytes.ok())
      return Fail(count, "the journal head cannot be read: " + head_bytes.status().message());
    if (!head_bytes->has_value()) {
      return count == 0 || Fail(count, "the journal head is missing");
    }
    Result<JournalHead> head = DecodeHead(**head_bytes);
    if (!head.ok()) return Fail(count, "the journal head is malformed");
    if (head->last_seq != count) {
      return Fail(std::min(head->last_seq, count) + 1,
                  "the journal head names " + Seq(head->last_seq) +
                      " records but the journal holds " + Seq(count) + " (truncated or extended)");
    }
    if (head->last_hash != prev_ || head->merkle.Root() != report_.root) {
      return Fail(count, "the journal head does not match the last record");
    }
    return true;
  }

  bool Fail(uint64_t seq, std::string problem) {
    report_ = Bad(report_, seq, std::move(problem));
    return false;
  }

  VerifyReport& report() { return report_; }
  // The index entries the records so far imply; nullopt when some were not decoded (payloads
  // unchecked, or ciphertext without the key).
  std::optional<IndexCounts> index_counts() const {
    return check_payloads_ && indexes_counted_ ? std::optional<IndexCounts>(index_counts_)
                                               : std::nullopt;
  }

 private:
  const LoggedWrites& journal_;
  const Checkpoints& checkpoints_;
  const PayloadCipher* cipher_;
  bool check_payloads_;
  CompactMerkle merkle_;
  Digest prev_ = kGenesisHash;
  VerifyReport report_;
  IndexCounts index_counts_;
  bool indexes_counted_ = true;
};

// The first records of a store that a running engine goes on writing: records 1..through_seq
// and the checkpoints among them, without the head (which moves on) or the commit log.
Result<VerifyReport> VerifyPrefix(const JournalStore& store, const LoggedWrites& logged,
                                  const Checkpoints& checkpoints, const PayloadCipher* cipher,
                                  const StoreVerifyLimits& limits) {
  ChainWalk walk(logged, checkpoints, cipher, /*check_payloads=*/true);
  VerifyReport& report = walk.report();
  std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(Cf::kRecords);
  for (it->SeekToFirst(); it->Valid() && report.records < limits.through_seq; it->Next()) {
    if (limits.cancel != nullptr && (report.records & 1023) == 0 &&
        limits.cancel->load(std::memory_order_relaxed)) {
      return Unavailable("verification cancelled");
    }
    if (!walk.Next(it->key().ToStringView(), it->value().ToStringView())) return report;
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading records"));
  if (report.records < limits.through_seq) {
    walk.Fail(report.records + 1, "record " + Seq(report.records + 1) + " is missing");
    return report;
  }
  report.ok = true;
  return report;
}

Result<VerifyReport> VerifyJournal(const JournalStore& store, const PublicKey& trusted_key,
                                   const PayloadCipher* cipher, bool check_payloads,
                                   const std::vector<CommitLogFrame>& frames,
                                   const StoreVerifyLimits* limits = nullptr) {
  Checkpoints checkpoints;
  int64_t last_time = INT64_MIN;
  {
    std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(Cf::kCheckpoints);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      uint64_t key_size = ParseSeqKey(it->key().ToStringView());
      if (key_size == 0) return Bad({}, 0, "a checkpoint is stored under a malformed key");
      if (limits != nullptr && key_size > limits->through_seq) break;
      AddCheckpoint(key_size, it->value().ToStringView(), trusted_key, last_time, checkpoints);
    }
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading checkpoints"));
  }

  // The store first, on its own: its records, checkpoints and head.
  LoggedWrites logged(store);  // no frames yet: the store as it is
  if (limits != nullptr) return VerifyPrefix(store, logged, checkpoints, cipher, *limits);
  ChainWalk walk(logged, checkpoints, cipher, check_payloads);
  VerifyReport& report = walk.report();
  {
    std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(Cf::kRecords);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (!walk.Next(it->key().ToStringView(), it->value().ToStringView())) return report;
    }
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading records"));
  }
  if (!walk.Finish()) return report;
  // Every record's own index entries are in place; the store's index families must hold no
  // others (the frames' records are indexed where the next start restores them, not yet here).
  if (std::optional<IndexCounts> counts = walk.index_counts()) {
    VERDICT_ASSIGN_OR_RETURN(std::string extra, FindUnaccountedIndexEntry(store, *counts, cipher));
    if (!extra.empty()) {
      walk.Fail(report.records, extra);
      return report;
    }
  }

  // Then the frames the engine's next start would restore: those after the store's last record,
  // as long as they continue it (one that leaves a gap refuses that start), applied over it.
  const uint64_t in_store = report.records;
  uint64_t next = in_store + 1;
  std::string frames_problem;
  uint64_t durable_mark = 0;
  for (const CommitLogFrame& frame : frames) {
    if (std::optional<uint64_t> mark = DurableMarkOf(frame)) {
      durable_mark = std::max(durable_mark, *mark);
      continue;
    }
    if (frame.last_seq < next) continue;  // the store holds it
    const std::string name =
        "commit log frame of records " + Seq(frame.first_seq) + ".." + Seq(frame.last_seq);
    if (frame.first_seq != next) {
      frames_problem = name + " does not follow the store's last record " + Seq(next - 1);
    } else if (Status added = logged.Add(frame); !added.ok()) {
      frames_problem = name + " does not hold its group's write batch (" + added.message() + ")";
    }
    if (!frames_problem.empty()) break;
    next = frame.last_seq + 1;
  }
  if (frames_problem.empty() && durable_mark >= next) {
    frames_problem = DurableMarkProblem(durable_mark, next - 1);
  }
  for (const auto& [key, value] : logged.checkpoints()) {
    const uint64_t key_size = ParseSeqKey(key);
    if (key_size <= in_store || checkpoints.count(key_size) != 0) {
      frames_problem = "a commit log frame holds a checkpoint of tree size " + Seq(key_size) +
                       ", which is not after the store's";
      break;
    }
    AddCheckpoint(key_size, value, trusted_key, last_time, checkpoints);
  }
  bool ok = true;
  for (auto record = logged.records().begin(); ok && record != logged.records().end(); ++record) {
    ok = walk.Next(record->first, record->second);
  }
  report.records_only_in_commit_log = report.records - in_store;
  if (!ok) return report;
  if (!frames_problem.empty()) {
    walk.Fail(report.records + 1, frames_problem);
    return report;
  }
  report.ok = walk.Finish();
  return report;
}

}  // namespace

std::string CommitLogLossProblem(const CommitLogLoss& loss, uint64_t durable_seq) {
  return "the commit log is damaged after record " + Seq(loss.after_seq) +
         ": a later frame shows records through " + Seq(loss.through_seq) +
         " were acknowledged, and the journal holds only " + Seq(durable_seq);
}

std::string DurableMarkProblem(uint64_t durable_mark, uint64_t held_seq) {
  return "the store's write-ahead log lost writes it had made durable: the commit log shows "
         "records through " +
         Seq(durable_mark) + " were durable in the store, and the journal holds only " +
         Seq(held_seq);
}

Result<VerifyReport> VerifyStore(const JournalStore& store, const PublicKey& trusted_key,
                                 const PayloadCipher* cipher, bool check_payloads) {
  return VerifyJournal(store, trusted_key, cipher, check_payloads, {});
}

Result<VerifyReport> VerifyStorePrefix(const JournalStore& store, const PublicKey& trusted_key,
                                       const PayloadCipher* cipher,
                                       const StoreVerifyLimits& limits) {
  return VerifyJournal(store, trusted_key, cipher, /*check_payloads=*/true, {}, &limits);
}

namespace {

// The stored account states against the head's sealed digest (state_seal.h): the problem, or
// empty when they match or the head seals none.
Result<std::string> StatesProblem(const JournalStore& store, const std::string& data_dir) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<JournalHead> head, ReadStoredHead(store));
  if (!head || !head->state_digest) return std::string();
  Result<StateSealer> sealer = StateSealer::Load(data_dir, /*create=*/false);
  if (!sealer.ok()) {
    return "account states cannot be checked against the journal head: " +
           sealer.status().message();
  }
  StateDigest found;
  uint64_t states = 0;
  std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(Cf::kState);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    found.Add(sealer->Tag(it->key().ToStringView(), it->value().ToStringView()));
    ++states;
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading account states"));
  if (found == *head->state_digest) return std::string();
  return StateDigestProblem(states);
}

}  // namespace

Result<VerifyReport> Verify(const VerifyOptions& options) {
  if (!std::filesystem::exists(options.data_dir + "/CURRENT")) {
    return NotFound("no journal in " + options.data_dir);
  }
  PublicKey key{};
  if (options.trusted_public_key) {
    key = *options.trusted_public_key;
  } else {
    VERDICT_ASSIGN_OR_RETURN(key, LoadPublicKey(options.data_dir));
  }
  // After a power failure (or a kill before the store's write) the commit log holds the last
  // groups; they are verified where the next start would put them. Read before the store is
  // opened: beside a running engine, every frame is then either in the store or continues it,
  // even if the log changes halves in between (it overwrites a half only once the store holds
  // all that half had).
  const std::string log_path = options.data_dir + "/commit.log";
  VERDICT_ASSIGN_OR_RETURN(CommitLogScan scan,
                           CommitLog::Scan(*rocksdb::FileSystem::Default(), log_path));
  StoreOptions store_options;
  store_options.data_dir = options.data_dir;
  store_options.read_only = true;
  store_options.create_if_missing = false;
  // As the engine opens it: a WAL that made groups durable itself must check to its end.
  store_options.strict_wal_recovery = !std::filesystem::exists(log_path);
  Result<std::unique_ptr<JournalStore>> opened = JournalStore::Open(store_options);
  if (!opened.ok() && opened.status().code() == StatusCode::kDataLoss) {
    return Bad({}, 1, "the store cannot be opened: " + opened.status().message());
  }
  VERDICT_RETURN_IF_ERROR(opened.status());
  std::unique_ptr<JournalStore> store = std::move(opened).value();
  std::unique_ptr<PayloadCipher> cipher;
  if (!options.kek_file.empty()) {
    VERDICT_ASSIGN_OR_RETURN(cipher, PayloadCipher::FromKekFile(options.kek_file));
    uint32_t max_id = 0;
    VERDICT_RETURN_IF_ERROR(LoadDataKeys(*store, *cipher, &max_id));
  }
  VERDICT_ASSIGN_OR_RETURN(VerifyReport report, VerifyJournal(*store, key, cipher.get(),
                                                              options.check_payloads, scan.frames));
  if (!report.ok) return report;
  if (scan.loss && scan.loss->through_seq > report.records) {
    return Bad(report, report.records + 1, CommitLogLossProblem(*scan.loss, report.records));
  }
  // With frames beyond the store, its states are those of an older head: the start that
  // restores the frames checks the states against the head they leave.
  if (report.records_only_in_commit_log == 0) {
    VERDICT_ASSIGN_OR_RETURN(std::string states, StatesProblem(*store, options.data_dir));
    if (!states.empty()) return Bad(report, 0, states);
  }
  if (options.check_store_files) {
    const std::atomic<bool> never{false};
    if (Status files = store->VerifyTableChecksums(never); !files.ok()) {
      if (files.code() != StatusCode::kDataLoss) return files;
      return Bad(report, 0, files.message());
    }
  }
  return report;
}

std::string VerifyReportToJson(const VerifyReport& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("ok").Bool(r.ok);
  w.Key("records").Uint(r.records);
  w.Key("checkpoints").Uint(r.checkpoints);
  w.Key("encrypted_records").Uint(r.encrypted_records);
  w.Key("records_only_in_commit_log").Uint(r.records_only_in_commit_log);
  if (r.ok) {
    w.Key("last_hash").String(ToHex(r.last_hash));
    w.Key("root").String(ToHex(r.root));
  } else {
    w.Key("first_bad_seq").Uint(r.first_bad_seq);
    w.Key("problem").String(r.problem);
  }
  w.EndObject();
  return out;
}

}  // namespace verdict::journal
