#include "journal/verifier.h"

#include <filesystem>
#include <map>
#include <vector>

#include "common/json_writer.h"
#include "journal/commit_log.h"
#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/merkle.h"
#include "journal/record.h"
#include "journal/stored_record.h"

namespace verdict::journal {
namespace {

struct CheckpointSlot {
  std::optional<Checkpoint> checkpoint;
  std::string problem;  // set when the checkpoint is bad on its own
};

VerifyReport Bad(VerifyReport report, uint64_t seq, std::string problem) {
  report.ok = false;
  report.first_bad_seq = seq;
  report.problem = std::move(problem);
  return report;
}

std::string Seq(uint64_t seq) { return std::to_string(seq); }

// Checks the payload of record `seq` and that the indexes lead back to it.
std::string CheckPayload(const JournalStore& store, std::string_view stored, uint64_t seq,
                         const PayloadCipher* cipher, bool* encrypted) {
  Result<EntryView> entry = DecodeEntry(stored);
  *encrypted = (entry->flags & kEntryFlagEncrypted) != 0;
  if (*encrypted && cipher == nullptr) return {};  // ciphertext: chain and tree checks only
  Result<JournalRecord> record = DecodeStoredEntry(stored, cipher);
  if (!record.ok()) return record.status().message();
  std::string seq_key = SeqKey(seq);
  if (record->kind == RecordKind::kAdminEvent) {
    Result<std::optional<std::string>> indexed =
        store.Get(Cf::kByAccount, AdminEventKey(record->tenant, seq));
    if (!indexed.ok() || !indexed->has_value()) return "admin event index lacks this record";
    return {};
  }
  if (Sha256(record->canonical_input) != record->input_sha256) {
    return "input_sha256 does not match canonical_input";
  }
  const Uuid& id = record->decision.decision_id;
  Result<std::optional<std::string>> by_id = store.Get(
      Cf::kByDecision, std::string_view(reinterpret_cast<const char*>(id.bytes.data()), 16));
  if (!by_id.ok() || !by_id->has_value() || **by_id != seq_key) {
    return "decision id index does not point at this record";
  }
  Result<std::optional<std::string>> by_txn = store.Get(
      Cf::kByTransaction, TransactionKey(record->tenant, record->decision.transaction_id));
  if (!by_txn.ok() || !by_txn->has_value() || **by_txn != seq_key) {
    return "transaction index does not point at this record";
  }
  return {};
}

}  // namespace

Result<VerifyReport> VerifyStore(const JournalStore& store, const PublicKey& trusted_key,
                                 const PayloadCipher* cipher, bool check_payloads) {
  VerifyReport report;

  // Checkpoints first: each must be well-formed, stored under its own tree size, signed by the
  // trusted key, and not older than the one before it.
  std::map<uint64_t, CheckpointSlot> checkpoints;
  {
    std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(Cf::kCheckpoints);
    int64_t last_time = INT64_MIN;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      uint64_t key_size = ParseSeqKey(it->key().ToStringView());
      if (key_size == 0) return Bad(report, 0, "a checkpoint is stored under a malformed key");
      CheckpointSlot& slot = checkpoints[key_size];
      Result<Checkpoint> cp = DecodeCheckpoint(it->value().ToStringView());
      if (!cp.ok()) {
        slot.problem = "checkpoint " + Seq(key_size) + " is malformed";
      } else if (cp->tree_size != key_size) {
        slot.problem = "checkpoint stored at tree size " + Seq(key_size) +
                       " is the checkpoint of " + "tree size " + Seq(cp->tree_size) + " (replaced)";
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
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading checkpoints"));
  }

  CompactMerkle merkle;
  Digest prev = kGenesisHash;
  uint64_t expected = 1;
  auto next_checkpoint = checkpoints.begin();
  std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(Cf::kRecords);
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
    uint64_t key_seq = ParseSeqKey(it->key().ToStringView());
    if (key_seq == 0) return Bad(report, expected, "a record is stored under a malformed key");
    if (key_seq != expected) {
      return Bad(report, expected, "record " + Seq(expected) + " is missing");
    }
    std::string_view stored = it->value().ToStringView();
    Result<EntryView> entry = DecodeEntry(stored);
    if (!entry.ok()) {
      return Bad(report, expected, "record " + Seq(expected) + ": " + entry.status().message());
    }
    if (entry->seq != expected) {
      return Bad(report, expected,
                 "record " + Seq(expected) + " holds the entry of record " + Seq(entry->seq) +
                     " (reordered or duplicated)");
    }
    if (entry->prev_hash != prev) {
      return Bad(report, expected,
                 "record " + Seq(expected) + " does not link to the record before it");
    }
    if (check_payloads) {
      bool encrypted = false;
      std::string problem = CheckPayload(store, stored, expected, cipher, &encrypted);
      if (!problem.empty())
        return Bad(report, expected, "record " + Seq(expected) + ": " + problem);
      if (encrypted) ++report.encrypted_records;
    } else if ((entry->flags & kEntryFlagEncrypted) != 0) {
      ++report.encrypted_records;
    }
    merkle.AppendLeafHash(MerkleLeafHash(AsBytes(entry->record_hash)));
    prev = entry->record_hash;
    // Checkpoints strictly inside this record's range cannot exist (keys are sizes); check the
    // one at exactly this size.
    if (next_checkpoint != checkpoints.end() && next_checkpoint->first == expected) {
      const CheckpointSlot& slot = next_checkpoint->second;
      if (!slot.problem.empty()) return Bad(report, expected, slot.problem);
      if (slot.checkpoint->root != merkle.Root()) {
        return Bad(report, expected,
                   "checkpoint " + Seq(expected) + ": Merkle root differs from the records");
      }
      if (slot.checkpoint->last_record_hash != prev) {
        return Bad(report, expected,
                   "checkpoint " + Seq(expected) + ": last record hash differs from the records");
      }
      ++report.checkpoints;
      ++next_checkpoint;
    }
    report.records = expected;
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading records"));
  uint64_t count = expected - 1;
  report.last_hash = prev;
  report.root = merkle.Root();
  if (next_checkpoint != checkpoints.end()) {
    return Bad(report, count + 1,
               "checkpoint " + Seq(next_checkpoint->first) + " covers records beyond the last (" +
                   Seq(count) + "): records were removed from the end");
  }

  Result<std::optional<std::string>> head_bytes = store.Get(Cf::kMeta, kMetaHeadKey);
  if (!head_bytes.ok()) return head_bytes.status();
  if (!head_bytes->has_value()) {
    if (count == 0) {
      report.ok = true;
      return report;
    }
    return Bad(report, count, "the journal head is missing");
  }
  Result<JournalHead> head = DecodeHead(**head_bytes);
  if (!head.ok()) return Bad(report, count, "the journal head is malformed");
  if (head->last_seq != count) {
    return Bad(report, std::min(head->last_seq, count) + 1,
               "the journal head names " + Seq(head->last_seq) + " records but the store holds " +
                   Seq(count) + " (truncated or extended)");
  }
  if (head->last_hash != prev || head->merkle.Root() != report.root) {
    return Bad(report, count, "the journal head does not match the last record");
  }
  report.ok = true;
  return report;
}

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
  StoreOptions store_options;
  store_options.data_dir = options.data_dir;
  store_options.read_only = true;
  store_options.create_if_missing = false;
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<JournalStore> store, JournalStore::Open(store_options));
  std::unique_ptr<PayloadCipher> cipher;
  if (!options.kek_file.empty()) {
    VERDICT_ASSIGN_OR_RETURN(cipher, PayloadCipher::FromKekFile(options.kek_file));
    uint32_t max_id = 0;
    VERDICT_RETURN_IF_ERROR(LoadDataKeys(*store, *cipher, &max_id));
  }
  VERDICT_ASSIGN_OR_RETURN(VerifyReport report,
                           VerifyStore(*store, key, cipher.get(), options.check_payloads));
  if (report.ok) {
    // Frames that continue the store's chain are what the next start will restore; say so,
    // rather than let a verify before that start look like a journal missing decisions.
    VERDICT_ASSIGN_OR_RETURN(
        std::vector<CommitLogFrame> frames,
        CommitLog::ReadFrames(*rocksdb::FileSystem::Default(), options.data_dir + "/commit.log"));
    uint64_t next = report.records + 1;
    for (const CommitLogFrame& frame : frames) {
      if (frame.last_seq < next) continue;  // the store holds it
      if (frame.first_seq != next) break;   // not a continuation: the start would refuse it
      report.records_only_in_commit_log += frame.last_seq - frame.first_seq + 1;
      next = frame.last_seq + 1;
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
