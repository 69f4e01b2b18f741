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

struct JournalRecord {
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
};

// Limits the decoder enforces; the encoder's caller (Journal::Enqueue) checks them too.
inline constexpr size_t kMaxStringBytes = 1 << 20;  // any one string field
inline constexpr size_t kMaxInputBytes = 16 << 20;  // canonical_input
inline constexpr size_t kMaxListLength = 1 << 16;   // any one list
inline constexpr uint8_t kPayloadFormatVersion = 1;

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
