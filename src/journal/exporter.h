// Reading a journal offline for people: one record as JSON, lookups by decision or transaction
// id, and JSON Lines export with time and account filters (`verdict audit show|export`).
// JournalReader owns a read-only store (safe beside a running engine); thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "common/result.h"
#include "journal/envelope.h"
#include "journal/journal_backend.h"
#include "journal/record.h"
#include "journal/store.h"

namespace verdict::journal {

// The record as one JSON object: journal fields, the inputs, and the decision in the shape of
// DESIGN.md §7 under "decision".
void WriteRecordJson(const JournalRecord& record, JsonWriter& writer);
std::string RecordToJson(const JournalRecord& record);

struct ExportFilter {
  std::optional<int64_t> from_us;  // decided_at_us >= from_us
  std::optional<int64_t> to_us;    // decided_at_us < to_us
  std::string tenant;              // empty: any tenant
  std::string account;             // empty: any account
};

class JournalReader {
 public:
  // kek_file may be empty; encrypted records then cannot be shown.
  static Result<std::unique_ptr<JournalReader>> Open(const std::string& data_dir,
                                                     const std::string& kek_file = {});
  // Reads through `backend` (e.g. the cluster journal in PostgreSQL) instead of a data dir.
  static Result<std::unique_ptr<JournalReader>> OverBackend(std::unique_ptr<JournalBackend> backend,
                                                            const std::string& kek_file = {});

  Result<std::optional<JournalRecord>> ReadRecord(uint64_t seq) const;
  // `id` is a decision id (UUID) or a transaction id; with an empty tenant a transaction id is
  // looked up in every tenant. Returns every match.
  Result<std::vector<JournalRecord>> Find(std::string_view id, std::string_view tenant) const;
  // Writes one JSON object per line for each matching record in sequence order; returns how
  // many were written.
  Result<uint64_t> ExportJsonLines(const ExportFilter& filter, std::ostream& out) const;
  // Every record (decisions and admin events) in sequence order; stops at fn's first error.
  Status ForEachRecord(const std::function<Status(const JournalRecord&)>& fn) const;
  // Every stored account state, in key order.
  Status ForEachState(
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const;

 private:
  JournalReader() = default;
  Result<std::vector<JournalRecord>> FindInBackend(std::string_view id,
                                                   std::string_view tenant) const;
  // One of the two: the embedded store, or a backend.
  std::unique_ptr<JournalStore> store_;
  std::unique_ptr<JournalBackend> backend_;
  std::unique_ptr<PayloadCipher> cipher_;
};

}  // namespace verdict::journal
