#include "journal/exporter.h"

#include <algorithm>
#include <filesystem>

#include "common/rfc3339.h"
#include "core/decision_json.h"
#include "journal/index_keys.h"
#include "journal/stored_record.h"

namespace verdict::journal {

void WriteRecordJson(const JournalRecord& rec, JsonWriter& w) {
  const Decision& d = rec.decision;
  w.BeginObject();
  w.Key("seq").Uint(rec.seq);
  w.Key("kind").String(rec.kind == RecordKind::kAdminEvent ? "admin_event"
                       : rec.kind == RecordKind::kHistory  ? "history"
                                                           : "decision");
  w.Key("record_hash").String(ToHex(rec.record_hash));
  w.Key("prev_hash").String(ToHex(rec.prev_hash));
  if (rec.kind == RecordKind::kAdminEvent) {
    w.Key("at").String(FormatRfc3339Micros(rec.decided_at_us));
    w.Key("tenant").String(rec.tenant);
    w.Key("principal").String(rec.principal);
    w.Key("action").String(rec.admin.action);
    w.Key("object").String(rec.admin.object);
    // Stored as the caller wrote it; exported as a string so that a malformed one cannot
    // break the export's JSON.
    w.Key("details").String(rec.admin.details_json);
    w.EndObject();
    return;
  }
  w.Key(rec.kind == RecordKind::kHistory ? "imported_at" : "decided_at")
      .String(FormatRfc3339Micros(rec.decided_at_us));
  w.Key("timestamp").String(FormatRfc3339Micros(rec.timestamp_us));
  w.Key("tenant").String(rec.tenant);
  w.Key("principal").String(rec.principal);
  w.Key("transaction_id").String(d.transaction_id);
  w.Key("input_sha256").String(ToHex(rec.input_sha256));
  w.Key("canonical_input").String(rec.canonical_input);
  w.Key("accounts").BeginArray();
  for (const std::string& a : rec.accounts) w.String(a);
  w.EndArray();
  if (rec.kind == RecordKind::kHistory) {
    // Applied to account state, never decided: no features, no decision.
    w.Key("record_id").String(d.decision_id.ToString());
    w.Key("input_position").Uint(rec.input_position);
    w.EndObject();
    return;
  }
  w.Key("feature_schema_version").String(rec.feature_schema_version);
  w.Key("features").BeginArray();
  for (double f : rec.features) w.Double(f);
  w.EndArray();
  if (!rec.feature_names.empty()) {
    w.Key("feature_names").BeginArray();
    for (const std::string& n : rec.feature_names) w.String(n);
    w.EndArray();
  }
  w.Key("decision");
  WriteDecisionJson(d, w);
  w.EndObject();
}

std::string RecordToJson(const JournalRecord& record) {
  std::string out;
  JsonWriter w(out);
  WriteRecordJson(record, w);
  return out;
}

Result<std::unique_ptr<JournalReader>> JournalReader::Open(const std::string& data_dir,
                                                           const std::string& kek_file) {
  if (!std::filesystem::exists(data_dir + "/CURRENT")) return NotFound("no journal in " + data_dir);
  auto reader = std::unique_ptr<JournalReader>(new JournalReader());
  StoreOptions options;
  options.data_dir = data_dir;
  options.read_only = true;
  options.create_if_missing = false;
  VERDICT_ASSIGN_OR_RETURN(reader->store_, JournalStore::Open(options));
  if (!kek_file.empty()) {
    VERDICT_ASSIGN_OR_RETURN(reader->cipher_, PayloadCipher::FromKekFile(kek_file));
    uint32_t max_id = 0;
    VERDICT_RETURN_IF_ERROR(LoadDataKeys(*reader->store_, *reader->cipher_, &max_id));
  }
  return reader;
}

Result<std::unique_ptr<JournalReader>> JournalReader::OverBackend(
    std::unique_ptr<JournalBackend> backend, const std::string& kek_file) {
  auto reader = std::unique_ptr<JournalReader>(new JournalReader());
  reader->backend_ = std::move(backend);
  if (!kek_file.empty()) {
    VERDICT_ASSIGN_OR_RETURN(reader->cipher_, PayloadCipher::FromKekFile(kek_file));
    uint32_t max_id = 0;
    VERDICT_RETURN_IF_ERROR(reader->backend_->LoadDataKeys(*reader->cipher_, &max_id));
  }
  return reader;
}

Result<std::optional<JournalRecord>> JournalReader::ReadRecord(uint64_t seq) const {
  std::optional<std::string> stored;
  if (backend_) {
    VERDICT_ASSIGN_OR_RETURN(stored, backend_->ReadEntry(seq));
  } else {
    VERDICT_ASSIGN_OR_RETURN(stored, store_->Get(Cf::kRecords, SeqKey(seq)));
  }
  if (!stored) return std::optional<JournalRecord>();
  VERDICT_ASSIGN_OR_RETURN(JournalRecord record, DecodeStoredEntry(*stored, cipher_.get()));
  return std::optional<JournalRecord>(std::move(record));
}

Result<std::vector<JournalRecord>> JournalReader::Find(std::string_view id,
                                                       std::string_view tenant) const {
  if (backend_) return FindInBackend(id, tenant);
  std::vector<uint64_t> seqs;
  if (std::optional<Uuid> uuid = Uuid::Parse(id)) {
    VERDICT_ASSIGN_OR_RETURN(
        std::optional<std::string> seq,
        store_->Get(Cf::kByDecision,
                    std::string_view(reinterpret_cast<const char*>(uuid->bytes.data()), 16)));
    if (seq) seqs.push_back(ParseSeqKey(*seq));
  }
  if (!tenant.empty()) {
    VERDICT_ASSIGN_OR_RETURN(
        std::optional<std::string> seq,
        store_->Get(Cf::kByTransaction, IndexedTransactionKey(cipher_.get(), tenant, id)));
    if (seq) seqs.push_back(ParseSeqKey(*seq));
  } else {
    // Keys are tenant \0 (transaction id or its keyed hash, which depends on the tenant): each
    // key's tenant gives the key the id would have there (audit use, not a hot path).
    std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kByTransaction);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string_view key = it->key().ToStringView();
      const size_t separator = key.find('\0');
      if (separator == std::string_view::npos) continue;
      if (key == IndexedTransactionKey(cipher_.get(), key.substr(0, separator), id)) {
        seqs.push_back(ParseSeqKey(it->value().ToStringView()));
      }
    }
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "scanning the transaction index"));
  }
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
  std::vector<JournalRecord> out;
  for (uint64_t seq : seqs) {
    VERDICT_ASSIGN_OR_RETURN(std::optional<JournalRecord> record, ReadRecord(seq));
    if (record) out.push_back(std::move(*record));
  }
  return out;
}

Result<std::vector<JournalRecord>> JournalReader::FindInBackend(std::string_view id,
                                                                std::string_view tenant) const {
  std::vector<JournalRecord> out;
  const std::optional<Uuid> uuid = Uuid::Parse(id);
  if (uuid) {
    VERDICT_ASSIGN_OR_RETURN(std::optional<uint64_t> seq, backend_->FindByDecisionId(*uuid));
    if (seq) {
      VERDICT_ASSIGN_OR_RETURN(std::optional<JournalRecord> record, ReadRecord(*seq));
      if (record) out.push_back(std::move(*record));
    }
  }
  if (!tenant.empty()) {
    VERDICT_ASSIGN_OR_RETURN(
        std::optional<uint64_t> seq,
        backend_->FindByTransaction(IndexedTransactionKey(cipher_.get(), tenant, id)));
    if (seq && (out.empty() || out.front().seq != *seq)) {
      VERDICT_ASSIGN_OR_RETURN(std::optional<JournalRecord> record, ReadRecord(*seq));
      if (record) out.push_back(std::move(*record));
    }
    return out;
  }
  // A transaction id in any tenant: the backend indexes (tenant, id) only, so every record is
  // looked at (audit use, not a hot path).
  VERDICT_RETURN_IF_ERROR(ForEachRecord([&](const JournalRecord& record) {
    const bool same_decision = uuid && !out.empty() && out.front().seq == record.seq;
    if (record.kind != RecordKind::kAdminEvent && record.decision.transaction_id == id &&
        !same_decision) {
      out.push_back(record);
    }
    return Status::Ok();
  }));
  std::sort(out.begin(), out.end(),
            [](const JournalRecord& a, const JournalRecord& b) { return a.seq < b.seq; });
  return out;
}

Status JournalReader::ForEachRecord(const std::function<Status(const JournalRecord&)>& fn) const {
  if (backend_) {
    return backend_->ScanEntries(1, [&](uint64_t, std::string_view entry) -> Result<bool> {
      VERDICT_ASSIGN_OR_RETURN(JournalRecord rec, DecodeStoredEntry(entry, cipher_.get()));
      VERDICT_RETURN_IF_ERROR(fn(rec));
      return true;
    });
  }
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kRecords);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    VERDICT_ASSIGN_OR_RETURN(JournalRecord rec,
                             DecodeStoredEntry(it->value().ToStringView(), cipher_.get()));
    VERDICT_RETURN_IF_ERROR(fn(rec));
  }
  return FromRocks(it->status(), "reading records");
}

Status JournalReader::ForEachState(
    const std::function<Status(std::string_view key, std::string_view value)>& fn) const {
  if (backend_) return backend_->ForEachState(fn);
  std::unique_ptr<rocksdb::Iterator> it = store_->NewIterator(Cf::kState);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    VERDICT_RETURN_IF_ERROR(fn(it->key().ToStringView(), it->value().ToStringView()));
  }
  return FromRocks(it->status(), "reading account states");
}

Result<uint64_t> JournalReader::ExportJsonLines(const ExportFilter& filter,
                                                std::ostream& out) const {
  uint64_t written = 0;
  std::string line;
  VERDICT_RETURN_IF_ERROR(ForEachRecord([&](const JournalRecord& rec) {
    if (filter.from_us && rec.decided_at_us < *filter.from_us) return Status::Ok();
    if (filter.to_us && rec.decided_at_us >= *filter.to_us) return Status::Ok();
    if (!filter.tenant.empty() && rec.tenant != filter.tenant) return Status::Ok();
    if (!filter.account.empty() &&
        std::find(rec.accounts.begin(), rec.accounts.end(), filter.account) == rec.accounts.end()) {
      return Status::Ok();
    }
    line.clear();
    JsonWriter w(line);
    WriteRecordJson(rec, w);
    line += '\n';
    out << line;
    if (!out) return Unavailable("cannot write the export");
    ++written;
    return Status::Ok();
  }));
  return written;
}

}  // namespace verdict::journal
