// ImportHistory's steps: read the tenant's journal (what is there, where an earlier import
// stopped), read the input once to check it (rows, ids, dates) before anything is written, then
// read it again and apply each transaction (Engine::ApplyHistory); the journal's group commit
// makes many transactions durable per sync.
#include "engine/history_import.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "api/transaction_json.h"
#include "common/hash.h"
#include "common/json_writer.h"
#include "common/mutex.h"
#include "common/rfc3339.h"
#include "journal/digest.h"

namespace verdict {
namespace {

using Steady = std::chrono::steady_clock;

double SecondsSince(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

// 1234567 -> "1,234,567".
std::string WithThousands(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// Where a row is, for messages: its line when the input has lines, else its row.
std::string Where(const LabelledTransaction& row) {
  return row.line > 0 ? "line " + std::to_string(row.line) : "row " + std::to_string(row.row);
}

// A record of the tenant's journal worth naming in a refusal.
struct DatedRecord {
  int64_t timestamp_us = std::numeric_limits<int64_t>::min();
  uint64_t seq = 0;
  std::string transaction_id;
  bool history = false;
};

// What the tenant's journal already holds.
struct JournalSummary {
  bool any_transactions = false;  // decisions or history of the tenant
  DatedRecord latest_decision;    // the latest-dated decision (seq 0: none)
  DatedRecord latest_any;         // the latest-dated decision or history record
  std::optional<journal::JournalRecord> last_history;  // the newest history record
};

Result<JournalSummary> SummarizeJournal(const journal::Journal& journal, std::string_view tenant) {
  JournalSummary summary;
  const uint64_t last = journal.durable_sequence();
  for (uint64_t seq = 1; seq <= last; ++seq) {
    VERDICT_ASSIGN_OR_RETURN(std::optional<journal::JournalRecord> record, journal.ReadRecord(seq));
    if (!record || record->tenant != tenant || record->kind == journal::RecordKind::kAdminEvent) {
      continue;
    }
    summary.any_transactions = true;
    const bool history = record->kind == journal::RecordKind::kHistory;
    DatedRecord dated{record->timestamp_us, seq, record->decision.transaction_id, history};
    if (dated.timestamp_us > summary.latest_any.timestamp_us) summary.latest_any = dated;
    if (!history && dated.timestamp_us > summary.latest_decision.timestamp_us) {
      summary.latest_decision = dated;
    }
    if (history) summary.last_history = std::move(record);
  }
  return summary;
}

// What the first reading of the input found.
struct InputScan {
  uint64_t rows = 0;
  uint64_t bad_rows = 0;
  std::vector<BadRow> bad_samples;
  int64_t first_us = std::numeric_limits<int64_t>::max();
  int64_t last_us = std::numeric_limits<int64_t>::min();
  // The row of the last history record holds that record's transaction: continue after it.
  bool continues_last_history = false;
  // The earliest-dated row after the resume position (or of all, without one), where it is.
  int64_t first_new_us = std::numeric_limits<int64_t>::max();
  std::string first_new_where;
  std::vector<uint64_t> id_hashes;  // of every transaction id, to find one used twice
};

Result<std::unique_ptr<TransactionReader>> OpenInput(const ReaderOptions& options) {
  return TransactionReader::Open(options);
}

Result<InputScan> ScanInput(const ReaderOptions& options,
                            const std::optional<journal::JournalRecord>& last_history) {
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<TransactionReader> reader, OpenInput(options));
  InputScan scan;
  LabelledTransaction row;
  const uint64_t resume_at = last_history ? last_history->input_position : 0;
  // Rows up to the last history record's position count as new only if it does not match.
  int64_t first_up_to_resume_us = std::numeric_limits<int64_t>::max();
  std::string first_up_to_resume_where;
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    ++scan.rows;
    const int64_t ts = row.txn.timestamp_us;
    scan.first_us = std::min(scan.first_us, ts);
    scan.last_us = std::max(scan.last_us, ts);
    scan.id_hashes.push_back(StableHash64(row.txn.transaction_id));
    const bool after_resume = !last_history || row.row > resume_at;
    int64_t& first = after_resume ? scan.first_new_us : first_up_to_resume_us;
    std::string& where = after_resume ? scan.first_new_where : first_up_to_resume_where;
    if (ts < first) {
      first = ts;
      where = Where(row);
    }
    if (last_history && row.row == resume_at &&
        row.txn.transaction_id == last_history->decision.transaction_id &&
        journal::Sha256(CanonicalTransactionJson(row.txn)) == last_history->input_sha256) {
      scan.continues_last_history = true;
    }
  }
  if (last_history && !scan.continues_last_history && first_up_to_resume_us < scan.first_new_us) {
    scan.first_new_us = first_up_to_resume_us;
    scan.first_new_where = first_up_to_resume_where;
  }
  scan.bad_rows = reader->stats().bad_rows;
  scan.bad_samples = reader->stats().bad_row_samples;
  return scan;
}

// Refuses a transaction id the input holds twice. Hashes first; only a repeated hash costs a
// second reading of the input, to compare the ids themselves.
Status CheckIdsUnique(const ReaderOptions& options, std::vector<uint64_t> hashes) {
  std::sort(hashes.begin(), hashes.end());
  std::vector<uint64_t> repeated;
  for (size_t i = 1; i < hashes.size(); ++i) {
    if (hashes[i] == hashes[i - 1] && (repeated.empty() || repeated.back() != hashes[i])) {
      repeated.push_back(hashes[i]);
    }
  }
  if (repeated.empty()) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<TransactionReader> reader, OpenInput(options));
  std::vector<std::pair<std::string, std::string>> seen;  // id, where
  LabelledTransaction row;
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    if (!std::binary_search(repeated.begin(), repeated.end(),
                            StableHash64(row.txn.transaction_id))) {
      continue;
    }
    for (const auto& [id, where] : seen) {
      if (id == row.txn.transaction_id) {
        return InvalidArgument("the input holds transaction_id " + id + " twice (" + where +
                                   " and " + Where(row) +
                                   "); a transaction id names one "
                                   "transaction",
                               "transaction_id");
      }
    }
    seen.emplace_back(row.txn.transaction_id, Where(row));
  }
  return Status::Ok();
}

// Refuses a row from `start_row` on whose transaction id the tenant's journal already holds.
Status CheckIdsNew(const ReaderOptions& options, const journal::Journal& journal,
                   std::string_view tenant, uint64_t start_row) {
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<TransactionReader> reader, OpenInput(options));
  LabelledTransaction row;
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    if (row.row < start_row) continue;
    VERDICT_ASSIGN_OR_RETURN(std::optional<journal::StoredRecord> stored,
                             journal.FindByTransaction(tenant, row.txn.transaction_id));
    if (stored) {
      const bool history = stored->record.kind == journal::RecordKind::kHistory;
      return Status(
          StatusCode::kAlreadyExists,
          "transaction_id " + row.txn.transaction_id + " (" + Where(row) +
              ") is already in the journal as record " + std::to_string(stored->record.seq) +
              (history ? ", imported as history" : ", decided") + "; nothing was imported",
          "transaction_id");
    }
  }
  return Status::Ok();
}

std::string DescribeBadRows(const InputScan& scan) {
  std::string out = std::to_string(scan.bad_rows) + " row(s) of the input cannot be read";
  for (size_t i = 0; i < scan.bad_samples.size() && i < 3; ++i) {
    out += (i == 0 ? ": " : "; ") + std::string("line ") +
           std::to_string(scan.bad_samples[i].line) + ": " + scan.bad_samples[i].message;
  }
  return out + "; nothing was imported (--allow-bad-rows skips them)";
}

// The first failure of a durable-commit callback (they run on the journal's threads).
class CommitFailure {
 public:
  void Record(const Status& status) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (first_.ok()) first_ = status;
  }
  Status first() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return first_;
  }

 private:
  mutable Mutex mu_;
  Status first_ GUARDED_BY(mu_) = Status::Ok();
};

Status StoppedAt(const LabelledTransaction& row, const Status& why) {
  return Status(why.code(), "import stopped at " + Where(row) + " (transaction_id " +
                                row.txn.transaction_id + "): " + why.message() +
                                "; what was durable is kept: run the same import again to "
                                "continue");
}

}  // namespace

std::string FormatImportProgress(const ImportProgress& p) {
  const double percent =
      p.total > 0 ? 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total) : 100.0;
  const double rate = p.seconds > 0 ? static_cast<double>(p.done) / p.seconds : 0.0;
  char percent_text[32];
  std::snprintf(percent_text, sizeof(percent_text), "%.1f", percent);
  return "import: " + WithThousands(p.done) + " of " + WithThousands(p.total) + " transactions (" +
         percent_text + " %), " + WithThousands(static_cast<uint64_t>(rate + 0.5)) + "/s";
}

Result<HistoryImportReport> ImportHistory(Engine& engine, const HistoryImportOptions& options) {
  const auto check_start = Steady::now();
  journal::Journal& journal = engine.journal();
  const std::string& tenant = options.caller.tenant;
  VERDICT_ASSIGN_OR_RETURN(JournalSummary summary, SummarizeJournal(journal, tenant));
  VERDICT_ASSIGN_OR_RETURN(InputScan scan, ScanInput(options.reader, summary.last_history));
  if (scan.bad_rows > 0 && !options.allow_bad_rows) {
    return InvalidArgument(DescribeBadRows(scan), "input");
  }
  VERDICT_RETURN_IF_ERROR(CheckIdsUnique(options.reader, std::move(scan.id_hashes)));

  HistoryImportReport report;
  report.rows = scan.rows;
  report.bad_rows = scan.bad_rows;
  report.first_timestamp_us = scan.rows > 0 ? scan.first_us : 0;
  report.last_timestamp_us = scan.rows > 0 ? scan.last_us : 0;
  const uint64_t start_row =
      scan.continues_last_history ? summary.last_history->input_position + 1 : 0;
  // Continuing: decisions made since must not be dated after what is still to come. A new
  // import: nothing the tenant's journal holds may be.
  const DatedRecord& latest =
      scan.continues_last_history ? summary.latest_decision : summary.latest_any;
  if (latest.seq != 0 && scan.first_new_us != std::numeric_limits<int64_t>::max() &&
      latest.timestamp_us > scan.first_new_us) {
    return Status(StatusCode::kFailedPrecondition,
                  "the data directory already holds " +
                      std::string(latest.history ? "imported history" : "a decision") +
                      " of tenant " + tenant + " dated " +
                      FormatRfc3339Micros(latest.timestamp_us) + " (transaction_id " +
                      latest.transaction_id + ", record " + std::to_string(latest.seq) +
                      "), after the input's transaction of " +
                      FormatRfc3339Micros(scan.first_new_us) + " (" + scan.first_new_where +
                      "); history is imported before anything later is decided; nothing was "
                      "imported",
                  "input");
  }
  if (summary.any_transactions) {
    VERDICT_RETURN_IF_ERROR(CheckIdsNew(options.reader, journal, tenant, start_row));
  }
  report.check_seconds = SecondsSince(check_start);

  // Rows before start_row were journaled by the earlier run (its positions count bad rows too,
  // as row numbers do).
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<TransactionReader> reader, OpenInput(options.reader));
  const auto import_start = Steady::now();
  auto next_progress = import_start + std::chrono::milliseconds(options.progress_interval_ms);
  const auto interval =
      std::chrono::milliseconds(std::max<int64_t>(1, options.progress_interval_ms));
  // Shared with the callbacks: the last of them may run after this function has returned.
  auto failure = std::make_shared<CommitFailure>();
  LabelledTransaction row;
  uint64_t total = 0;
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    if (row.row < start_row) {
      ++report.already_imported;
      continue;
    }
    if (total == 0) total = scan.rows - report.already_imported;
    Status applied = engine.ApplyHistory(row.txn, row.row, options.caller,
                                         [failure](const Result<journal::CommitInfo>& commit) {
                                           if (!commit.ok()) failure->Record(commit.status());
                                         });
    if (!applied.ok()) return StoppedAt(row, applied);
    ++report.imported;
    if (options.progress && Steady::now() >= next_progress) {
      options.progress({report.imported, total, SecondsSince(import_start)});
      next_progress = Steady::now() + interval;
    }
  }
  Status flushed = journal.Flush();
  if (flushed.ok()) flushed = failure->first();
  if (!flushed.ok()) {
    return Status(flushed.code(), "import failed: " + flushed.message() +
                                      "; what was durable is kept: run the same import again "
                                      "to continue");
  }
  report.import_seconds = SecondsSince(import_start);
  if (options.progress && report.imported > 0) {
    options.progress({report.imported, total, report.import_seconds});
  }
  return report;
}

std::string HistoryImportReportJson(const HistoryImportReport& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("rows").Uint(r.rows);
  w.Key("bad_rows").Uint(r.bad_rows);
  w.Key("already_imported").Uint(r.already_imported);
  w.Key("imported").Uint(r.imported);
  w.Key("first_timestamp").String(r.rows > 0 ? FormatRfc3339Micros(r.first_timestamp_us) : "");
  w.Key("last_timestamp").String(r.rows > 0 ? FormatRfc3339Micros(r.last_timestamp_us) : "");
  w.Key("check_seconds").Double(r.check_seconds);
  w.Key("import_seconds").Double(r.import_seconds);
  w.Key("transactions_per_second")
      .Double(r.import_seconds > 0 ? static_cast<double>(r.imported) / r.import_seconds : 0.0);
  w.EndObject();
  return out;
}

}  // namespace verdict
