// Replaying a journal offline to prove it explains the engine's state: every decision record's
// transaction is re-run, in journal order, through the same feature code on fresh account
// states, and every history record's transaction (verdict import) is applied to them. The
// recomputed feature vectors must equal the journaled ones bit for bit (I3), and the final states
// must equal the stored ones (I2: the store holds exactly the journal's prefix). Stateless
// function; reads a stopped or running engine's journal read-only.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "journal/exporter.h"

namespace verdict {

struct JournalReplayReport {
  uint64_t decisions = 0;
  uint64_t history = 0;  // imported transactions (state only, nothing to compare)
  uint64_t admin_events = 0;
  uint64_t accounts = 0;  // account states recomputed
  uint64_t feature_mismatches = 0;
  uint64_t state_mismatches = 0;  // differing, missing or extra stored states
  uint64_t first_feature_mismatch_seq = 0;
  std::string first_state_mismatch;  // the account key, and how it differs
  bool ok() const { return feature_mismatches == 0 && state_mismatches == 0; }
};

// `journal_dir` is DATA_DIR/journal. Fails (rather than reporting) when the journal cannot be
// read or a record's input cannot be decoded.
Result<JournalReplayReport> ReplayJournal(const std::string& journal_dir,
                                          const std::string& kek_file = {});
// The same over any journal (a data dir's, or a cluster's in PostgreSQL).
Result<JournalReplayReport> ReplayJournal(const journal::JournalReader& reader);

std::string JournalReplayReportToJson(const JournalReplayReport& report);

}  // namespace verdict
