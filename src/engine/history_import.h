// ImportHistory: loads a bank's transaction history (any input TransactionReader reads) into an
// engine's data directory before it serves (`verdict import`, docs/import.md): every transaction
// is applied to account state and journaled as a history record (Engine::ApplyHistory), so the
// first decision afterwards sees the accounts as if the engine had decided the whole history.
// Checks everything it can before it writes anything; resumes an interrupted import of the same
// input. Stateless functions; ImportHistory runs on the calling thread (the progress callback
// too) while no other thread decides on the engine's data directory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/result.h"
#include "engine/caller.h"
#include "engine/engine.h"
#include "formats/transaction_reader.h"

namespace verdict {

// How far an import has got: transactions journaled by this run (done) of those it will
// journal (total), and the seconds since it started writing.
struct ImportProgress {
  uint64_t done = 0;
  uint64_t total = 0;
  double seconds = 0;
};

// One line, no line break: "import: 1,250,000 of 10,000,000 transactions (12.5 %), 83,333/s".
std::string FormatImportProgress(const ImportProgress& progress);

struct HistoryImportOptions {
  ReaderOptions reader;  // the input: path and format
  // Whose history it is: the tenant whose accounts it fills, and the principal the records name.
  Caller caller{"default", "import"};
  // Rows the reader cannot parse refuse the import unless this is set; then they are skipped
  // (counted and reported), as `verdict replay` skips them.
  bool allow_bad_rows = false;
  // Called every progress_interval_ms while writing, and once at the end.
  std::function<void(const ImportProgress&)> progress;
  int64_t progress_interval_ms = 1000;
};

struct HistoryImportReport {
  uint64_t rows = 0;               // good transactions in the input
  uint64_t bad_rows = 0;           // rows skipped (only with allow_bad_rows)
  uint64_t already_imported = 0;   // journaled by an earlier run of the same import
  uint64_t imported = 0;           // journaled by this run
  int64_t first_timestamp_us = 0;  // earliest and latest event time in the input
  int64_t last_timestamp_us = 0;
  double check_seconds = 0;   // reading the journal and the input before writing
  double import_seconds = 0;  // writing, up to the last record durable
};

// Imports `options.reader`'s transactions into `engine`, in input order. Refuses, with nothing
// written, when: the input has bad rows (unless allowed) or one transaction id twice; a
// transaction id of it is already journaled for the tenant (other than by an earlier run of
// this import); or the tenant's journal already holds a record (a decision, or history of
// another import) dated after the input's earliest transaction — history goes before
// everything the engine has seen. An input whose row at the last history record's position is
// that record's transaction (same id, same canonical input) continues after it. A failure
// while writing keeps what is durable; running the same import again continues from there.
Result<HistoryImportReport> ImportHistory(Engine& engine, const HistoryImportOptions& options);

std::string HistoryImportReportJson(const HistoryImportReport& report);

}  // namespace verdict
