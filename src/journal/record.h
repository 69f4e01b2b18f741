// JournalRecord: one journaled decision with its inputs, and the strict canonical codec of its
// payload (docs/journal_format.md §2). Value type; the codec functions are stateless and
// thread-safe. DecodeRecordPayload never crashes on arbitrary bytes (fuzzed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/decision.h"
#include "journal/digest.h"

namespace verdict::journal {

// What a record is. Decisions carry the transaction, features and decision; admin events
// (a key created, a model activated, a case disposed) carry who did what to which object;
// history records (`verdict import`) carry a transaction the engine applied to account state
// without deciding it: no features, no decision. All are links of the one hash chain, so none
// can be altered or dropped unseen.
enum class RecordKind : uint8_t { kDecision = 0, kAdminEvent = 1, kHistory = 2 };

// The body of an admin event record.
struct AdminAction {
  std::string action;        // e.g. "keys.create", "models.activate", "cases.dispose"
  std::string object;        // what it was done to, e.g. a key id or "aml/4"
  std::string details_json;  // a JSON object with the particulars; never secrets
};

struct JournalRecord {
  RecordKind kind = RecordKind::kDecision;
  // Assigned by the journal; ignored on submission.
  uint64_t seq = 0;
  Digest prev_hash{};
  Digest record_hash{};

  int64_t decided_at_us = 0;  // when the engine decided (UTC micros)
  int64_t timestamp_us = 0;   // the transaction's event time
  std::string tenant;
  std::string principal;
  // The exact bytes the engine decided on (canonical JSON of the transaction) and SHA-256 of it;
  // idempotency compares input_sha256 of a retried request with the stored one. Journal::Enqueue
  // computes input_sha256 itself.
  std::string canonical_input;
  Digest input_sha256{};
  // Account keys the transaction touched (sender, receiver), for the by-account index.
  std::vector<std::string> accounts;
  std::string feature_schema_version;
  std::vector<double> features;
  // Empty, or one name per feature.
  std::vector<std::string> feature_names;
  // decision.transaction_id is the transaction id; decision.decision_id the decision id.
  Decision decision;
  // kind == kAdminEvent only; such a record uses decided_at_us (when), tenant and principal
  // (who) and none of the decision fields.
  AdminAction admin;
  // kind == kHistory only: the transaction's 0-based position in the input it was imported
  // from, so that an interrupted import can continue after it. A history record uses
  // decided_at_us (when it was imported), timestamp_us, tenant, principal, canonical_input,
  // input_sha256, accounts and, of the decision, only transaction_id and decision_id (the
  // record's own id, indexed like a decision's so that every index treats both alike).
  uint64_t input_position = 0;
};

// Limits the decoder enforces; the encoder's caller (Journal::Enqueue) checks them too.
inline constexpr size_t kMaxStringBytes = 1 << 20;  // any one string field
inline constexpr size_t kMaxInputBytes = 16 << 20;  // canonical_input
inline constexpr size_t kMaxListLength = 1 << 16;   // any one list
// The payload's first byte: its layout. 1 is a decision record, 2 an admin event, 3 history,
// 4 a decision record of a traced decision (1's fields, then the 16-byte trace id): an
// untraced decision keeps layout 1, so its bytes are as before tracing existed. 5 a decision
// record of a model with a risk calibration or an anomaly model (1's fields, then a byte of
// flags: 1 a trace id, 2 the risk, 4 the anomaly score; then the 16-byte trace id, the risk
// and the anomaly score as 8-byte doubles, each only when flagged): a decision with neither
// keeps layout 1 or 4.
inline constexpr uint8_t kPayloadFormatVersion = 1;
inline constexpr uint8_t kAdminPayloadFormatVersion = 2;
inline constexpr uint8_t kHistoryPayloadFormatVersion = 3;
inline constexpr uint8_t kTracedPayloadFormatVersion = 4;
inline constexpr uint8_t kScoredPayloadFormatVersion = 5;

// Appends the canonical payload of `record` (all fields except seq and the hashes) to `out`.
void EncodeRecordPayload(const JournalRecord& record, std::string& out);
// Parses a payload produced by EncodeRecordPayload into `record` (seq and hashes untouched).
// Refuses trailing bytes, unknown versions, out-of-range enums and oversize fields.
Status DecodeRecordPayload(std::string_view payload, JournalRecord& record);

// Checks what the encoder cannot represent or the indexes cannot key: NUL bytes in tenant,
// transaction id or account keys, oversize fields, feature_names of the wrong length.
Status ValidateRecord(const JournalRecord& record);

bool RecordsEqual(const JournalRecord& a, const JournalRecord& b);

}  // namespace verdict::journal
