#include "journal/record.h"

#include <cmath>
#include <cstring>

#include "journal/bytes.h"

namespace verdict::journal {
namespace {

void PutDigest(ByteWriter& w, const Digest& d) { w.Raw(AsBytes(d)); }

// Layout 5's flags: which of the optional tail fields follow, in this order.
constexpr uint8_t kHasTraceId = 1;
constexpr uint8_t kHasRisk = 2;
constexpr uint8_t kHasAnomaly = 4;

Status Malformed(std::string what) {
  return InvalidArgument("malformed journal record payload: " + std::move(what));
}

// Reads a u32 count that cannot exceed kMaxListLength nor the bytes left (each element takes
// at least `min_element_bytes`), so garbage cannot make us reserve gigabytes.
bool ReadCount(ByteReader& r, size_t min_element_bytes, uint32_t& count) {
  count = r.U32();
  if (!r.ok() || count > kMaxListLength || count * min_element_bytes > r.remaining()) {
    r.Fail();
    return false;
  }
  return true;
}

// A W3C trace id: 32 lower-case hex digits as its 16 bytes, and back.
void PutTraceId(ByteWriter& w, std::string_view hex) {
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string bytes(16, '\0');
  for (size_t i = 0; i < 16; ++i) {
    bytes[i] = static_cast<char>((nibble(hex[2 * i]) << 4) | nibble(hex[2 * i + 1]));
  }
  w.Raw(bytes);
}

std::string TraceIdHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(32);
  for (char b : bytes) {
    hex.push_back(kDigits[(static_cast<unsigned char>(b) >> 4) & 0xf]);
    hex.push_back(kDigits[static_cast<unsigned char>(b) & 0xf]);
  }
  return hex;
}

bool IsTraceId(std::string_view hex) {
  if (hex.size() != 32) return false;
  bool non_zero = false;
  for (char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    non_zero |= c != '0';
  }
  return non_zero;
}

Status Finish(const ByteReader& r) {
  if (!r.ok()) {
    return Malformed("truncated or oversize field near byte " + std::to_string(r.position()));
  }
  if (!r.at_end()) return Malformed(std::to_string(r.remaining()) + " trailing bytes");
  return Status::Ok();
}

Status DecodeAdminPayload(ByteReader& r, JournalRecord& rec) {
  rec = JournalRecord{};
  rec.kind = RecordKind::kAdminEvent;
  rec.decided_at_us = r.I64();
  rec.tenant = r.Str(kMaxStringBytes);
  rec.principal = r.Str(kMaxStringBytes);
  rec.admin.action = r.Str(kMaxStringBytes);
  rec.admin.object = r.Str(kMaxStringBytes);
  rec.admin.details_json = r.Str(kMaxInputBytes);
  return Finish(r);
}

// Reads the accounts list (shared by decision and history payloads).
void ReadAccounts(ByteReader& r, std::vector<std::string>& accounts) {
  uint32_t n = 0;
  accounts.clear();
  if (ReadCount(r, 4, n)) {
    accounts.reserve(n);
    for (uint32_t i = 0; i < n && r.ok(); ++i) accounts.emplace_back(r.Str(kMaxStringBytes));
  }
}

// What decision and history payloads begin with, after their format version: the record's
// id, times, who, the transaction and its accounts.
void EncodeTransactionPart(const JournalRecord& rec, ByteWriter& w) {
  const Decision& d = rec.decision;
  w.Raw(std::string_view(reinterpret_cast<const char*>(d.decision_id.bytes.data()), 16));
  w.I64(rec.decided_at_us);
  w.I64(rec.timestamp_us);
  w.Str(rec.tenant);
  w.Str(rec.principal);
  w.Str(d.transaction_id);
  w.Str(rec.canonical_input);
  PutDigest(w, rec.input_sha256);
  w.U32(static_cast<uint32_t>(rec.accounts.size()));
  for (const std::string& a : rec.accounts) w.Str(a);
}

void EncodeHistoryPayload(const JournalRecord& rec, ByteWriter& w) {
  w.U8(kHistoryPayloadFormatVersion);
  EncodeTransactionPart(rec, w);
  w.U64(rec.input_position);
}

// EncodeTransactionPart's counterpart.
void DecodeTransactionPart(ByteReader& r, JournalRecord& rec) {
  Decision& d = rec.decision;
  std::string_view id = r.Raw(16);
  if (r.ok()) std::memcpy(d.decision_id.bytes.data(), id.data(), 16);
  rec.decided_at_us = r.I64();
  rec.timestamp_us = r.I64();
  rec.tenant = r.Str(kMaxStringBytes);
  rec.principal = r.Str(kMaxStringBytes);
  d.transaction_id = r.Str(kMaxStringBytes);
  rec.canonical_input = r.Str(kMaxInputBytes);
  rec.input_sha256 = r.Array<32>();
  ReadAccounts(r, rec.accounts);
}

Status DecodeHistoryPayload(ByteReader& r, JournalRecord& rec) {
  rec = JournalRecord{};
  rec.kind = RecordKind::kHistory;
  DecodeTransactionPart(r, rec);
  rec.input_position = r.U64();
  return Finish(r);
}

}  // namespace

void EncodeRecordPayload(const JournalRecord& rec, std::string& out) {
  ByteWriter w(out);
  if (rec.kind == RecordKind::kAdminEvent) {
    w.U8(kAdminPayloadFormatVersion);
    w.I64(rec.decided_at_us);
    w.Str(rec.tenant);
    w.Str(rec.principal);
    w.Str(rec.admin.action);
    w.Str(rec.admin.object);
    w.Str(rec.admin.details_json);
    return;
  }
  if (rec.kind == RecordKind::kHistory) return EncodeHistoryPayload(rec, w);
  const Decision& d = rec.decision;
  // Room for the whole payload up front (the fixed fields and the strings' length prefixes fit
  // in the slack): growing a ~1 KB string by doubling copied it several times per record.
  out.reserve(out.size() + 512 + rec.canonical_input.size() + 8 * rec.features.size() +
              64 * (rec.feature_names.size() + d.reasons.size() + d.contributions.size()) +
              rec.tenant.size() + rec.principal.size() + d.transaction_id.size());
  const bool traced = !d.trace.trace_id.empty();
  const bool scored = d.risk.has_value() || d.anomaly.has_value();
  w.U8(scored   ? kScoredPayloadFormatVersion
       : traced ? kTracedPayloadFormatVersion
                : kPayloadFormatVersion);
  EncodeTransactionPart(rec, w);
  w.Str(rec.feature_schema_version);
  w.U32(static_cast<uint32_t>(rec.features.size()));
  for (double f : rec.features) w.F64(f);
  w.U32(static_cast<uint32_t>(rec.feature_names.size()));
  for (const std::string& n : rec.feature_names) w.Str(n);
  w.Str(d.model.name);
  w.Str(d.model.version);
  w.Str(d.model.sha256);
  w.Str(d.policy.version);
  w.Str(d.policy.sha256);
  w.U8(static_cast<uint8_t>(d.outcome));
  w.F64(d.score);
  w.U8(static_cast<uint8_t>(d.path));
  w.U32(static_cast<uint32_t>(d.reasons.size()));
  for (const Reason& r : d.reasons) {
    w.Str(r.code);
    w.Str(r.rule);
    w.Str(r.message);
  }
  w.U32(static_cast<uint32_t>(d.contributions.size()));
  for (const Contribution& c : d.contributions) {
    w.Str(c.feature);
    w.F64(c.value);
    w.F64(c.contribution);
  }
  const StageTimings& t = d.timings;
  for (int64_t v : {t.queue_us, t.features_us, t.model_us, t.policy_us, t.journal_us, t.total_us}) {
    w.I64(v);
  }
  if (scored) {
    w.U8(static_cast<uint8_t>((traced ? kHasTraceId : 0) | (d.risk ? kHasRisk : 0) |
                              (d.anomaly ? kHasAnomaly : 0)));
  }
  if (traced) PutTraceId(w, d.trace.trace_id);
  if (d.risk) w.F64(*d.risk);
  if (d.anomaly) w.F64(*d.anomaly);
}

Status DecodeRecordPayload(std::string_view payload, JournalRecord& rec) {
  ByteReader r(payload);
  uint8_t version = r.U8();
  if (!r.ok()) return Malformed("empty");
  if (version == kAdminPayloadFormatVersion) return DecodeAdminPayload(r, rec);
  if (version == kHistoryPayloadFormatVersion) return DecodeHistoryPayload(r, rec);
  if (version != kPayloadFormatVersion && version != kTracedPayloadFormatVersion &&
      version != kScoredPayloadFormatVersion) {
    return Malformed("unknown payload version " + std::to_string(version));
  }
  DecodeTransactionPart(r, rec);
  Decision& d = rec.decision;
  uint32_t n = 0;
  rec.feature_schema_version = r.Str(kMaxStringBytes);
  rec.features.clear();
  if (ReadCount(r, 8, n)) {
    rec.features.reserve(n);
    for (uint32_t i = 0; i < n && r.ok(); ++i) rec.features.push_back(r.F64());
  }
  rec.feature_names.clear();
  if (ReadCount(r, 4, n)) {
    rec.feature_names.reserve(n);
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
      rec.feature_names.emplace_back(r.Str(kMaxStringBytes));
    }
  }
  d.model.name = r.Str(kMaxStringBytes);
  d.model.version = r.Str(kMaxStringBytes);
  d.model.sha256 = r.Str(kMaxStringBytes);
  d.policy.version = r.Str(kMaxStringBytes);
  d.policy.sha256 = r.Str(kMaxStringBytes);
  uint8_t outcome = r.U8();
  d.score = r.F64();
  uint8_t path = r.U8();
  if (r.ok() && outcome > static_cast<uint8_t>(Outcome::kBlock)) return Malformed("bad outcome");
  if (r.ok() && path > static_cast<uint8_t>(DecisionPath::kFallback)) return Malformed("bad path");
  d.outcome = static_cast<Outcome>(outcome);
  d.path = static_cast<DecisionPath>(path);
  d.reasons.clear();
  if (ReadCount(r, 12, n)) {
    d.reasons.reserve(n);
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
      Reason reason;
      reason.code = r.Str(kMaxStringBytes);
      reason.rule = r.Str(kMaxStringBytes);
      reason.message = r.Str(kMaxStringBytes);
      d.reasons.push_back(std::move(reason));
    }
  }
  d.contributions.clear();
  if (ReadCount(r, 20, n)) {
    d.contributions.reserve(n);
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
      Contribution c;
      c.feature = r.Str(kMaxStringBytes);
      c.value = r.F64();
      c.contribution = r.F64();
      d.contributions.push_back(std::move(c));
    }
  }
  StageTimings& t = d.timings;
  for (int64_t* v :
       {&t.queue_us, &t.features_us, &t.model_us, &t.policy_us, &t.journal_us, &t.total_us}) {
    *v = r.I64();
  }
  d.trace = TraceRef{};
  d.risk.reset();
  d.anomaly.reset();
  uint8_t flags = version == kTracedPayloadFormatVersion ? kHasTraceId : 0;
  if (version == kScoredPayloadFormatVersion) {
    flags = r.U8();
    // Layout 5 without a risk or an anomaly score would encode again as layout 1 or 4.
    if (r.ok() && ((flags & ~(kHasTraceId | kHasRisk | kHasAnomaly)) != 0 ||
                   (flags & (kHasRisk | kHasAnomaly)) == 0)) {
      return Malformed("bad flags " + std::to_string(flags));
    }
  }
  if (flags & kHasTraceId) {
    d.trace.trace_id = TraceIdHex(r.Raw(16));
    // An all-zero id is no trace: encoding it again would not give these bytes.
    if (r.ok() && !IsTraceId(d.trace.trace_id)) return Malformed("all-zero trace id");
  }
  if (flags & kHasRisk) d.risk = r.F64();
  if (flags & kHasAnomaly) d.anomaly = r.F64();
  VERDICT_RETURN_IF_ERROR(Finish(r));
  rec.kind = RecordKind::kDecision;
  rec.admin = AdminAction{};
  rec.input_position = 0;
  if (!rec.feature_names.empty() && rec.feature_names.size() != rec.features.size()) {
    return Malformed("feature_names and features differ in length");
  }
  return Status::Ok();
}

Status ValidateRecord(const JournalRecord& rec) {
  auto no_nul = [](std::string_view s) { return s.find('\0') == std::string_view::npos; };
  if (rec.tenant.empty() || !no_nul(rec.tenant)) {
    return InvalidArgument("tenant must be non-empty and free of NUL bytes", "tenant");
  }
  if (rec.kind == RecordKind::kAdminEvent) {
    if (rec.admin.action.empty())
      return InvalidArgument("an admin event needs an action", "action");
    for (std::string_view s : {std::string_view(rec.principal), std::string_view(rec.admin.action),
                               std::string_view(rec.admin.object)}) {
      if (s.size() > kMaxStringBytes) return InvalidArgument("a string field exceeds 1 MiB");
    }
    if (rec.admin.details_json.size() > kMaxInputBytes) {
      return InvalidArgument("admin event details too large", "details_json");
    }
    return Status::Ok();
  }
  if (rec.kind == RecordKind::kHistory && (!rec.features.empty() || !rec.feature_names.empty())) {
    // Nothing was decided: a feature vector here would be one no reader compares.
    return InvalidArgument("a history record carries no features", "features");
  }
  if (rec.decision.transaction_id.empty() || !no_nul(rec.decision.transaction_id)) {
    return InvalidArgument("transaction_id must be non-empty and free of NUL bytes",
                           "transaction_id");
  }
  if (rec.canonical_input.size() > kMaxInputBytes) {
    return InvalidArgument("canonical input too large", "canonical_input");
  }
  if (rec.accounts.size() > kMaxListLength || rec.features.size() > kMaxListLength ||
      rec.feature_names.size() > kMaxListLength || rec.decision.reasons.size() > kMaxListLength ||
      rec.decision.contributions.size() > kMaxListLength) {
    return InvalidArgument("a list in the record is longer than 65536 entries");
  }
  for (const std::string& a : rec.accounts) {
    if (a.empty() || !no_nul(a) || a.size() > kMaxStringBytes) {
      return InvalidArgument("account keys must be non-empty and free of NUL bytes", "accounts");
    }
  }
  if (!rec.feature_names.empty() && rec.feature_names.size() != rec.features.size()) {
    return InvalidArgument("feature_names must be empty or match features", "feature_names");
  }
  const Decision& d = rec.decision;
  if (!d.trace.trace_id.empty() && !IsTraceId(d.trace.trace_id)) {
    return InvalidArgument("trace id must be 32 lower-case hex digits, not all zero", "trace_id");
  }
  if ((d.risk && !std::isfinite(*d.risk)) || (d.anomaly && !std::isfinite(*d.anomaly))) {
    return InvalidArgument("risk and anomaly must be finite numbers", d.risk ? "risk" : "anomaly");
  }
  for (std::string_view s :
       {std::string_view(rec.tenant), std::string_view(rec.principal),
        std::string_view(d.transaction_id), std::string_view(rec.feature_schema_version),
        std::string_view(d.model.name), std::string_view(d.model.version),
        std::string_view(d.model.sha256), std::string_view(d.policy.version),
        std::string_view(d.policy.sha256)}) {
    if (s.size() > kMaxStringBytes) return InvalidArgument("a string field exceeds 1 MiB");
  }
  for (const std::string& n : rec.feature_names) {
    if (n.size() > kMaxStringBytes) return InvalidArgument("a feature name exceeds 1 MiB");
  }
  for (const Reason& r : d.reasons) {
    if (r.code.size() > kMaxStringBytes || r.rule.size() > kMaxStringBytes ||
        r.message.size() > kMaxStringBytes) {
      return InvalidArgument("a reason field exceeds 1 MiB");
    }
  }
  for (const Contribution& c : d.contributions) {
    if (c.feature.size() > kMaxStringBytes) return InvalidArgument("a feature name exceeds 1 MiB");
  }
  return Status::Ok();
}

bool RecordsEqual(const JournalRecord& a, const JournalRecord& b) {
  if (a.seq != b.seq || a.prev_hash != b.prev_hash || a.record_hash != b.record_hash) return false;
  std::string ea;
  std::string eb;
  EncodeRecordPayload(a, ea);
  EncodeRecordPayload(b, eb);
  return ea == eb;
}

}  // namespace verdict::journal
