#include "engine/history_import.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "engine/journal_replay.h"
#include "formats/verdict_csv.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using journal::testing_util::TempDir;

// A verdict CSV of `count` transfers among a few accounts, one a minute from 09:00 on
// 2026-12-01 (rows `first` to `first + count - 1`).
std::string HistoryCsv(int count, int first = 0) {
  std::string csv(kVerdictCsvHeader);
  csv += "\n";
  for (int i = first; i < first + count; ++i) {
    char ts[32];
    std::snprintf(ts, sizeof(ts), "2026-12-01T%02d:%02d:00Z", 9 + i / 60, i % 60);
    csv += "h" + std::to_string(i) + "," + ts + "," + std::to_string(100 + 13 * i) + ".00,USD,S" +
           std::to_string(i % 5) + ",,US,R" + std::to_string(i % 3) + ",,GB,wire,transfer,0,,\n";
  }
  return csv;
}

std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.Sub(name);
  std::ofstream(path) << text;
  return path;
}

std::unique_ptr<Engine> OpenEngine(const std::string& data_dir, MetricsRegistry& metrics) {
  EngineOptions options;
  options.data_dir = data_dir;
  options.sched.workers = 1;
  Result<std::unique_ptr<Engine>> engine =
      Engine::Create(options, metrics, SystemClock::Instance());
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine).value() : nullptr;
}

Result<HistoryImportReport> Import(Engine& engine, const std::string& path) {
  HistoryImportOptions options;
  options.reader.path = path;
  return ImportHistory(engine, options);
}

// The transaction decided after the history, on accounts it used.
Transaction Probe(const std::string& id) {
  Result<Transaction> txn = TransactionDecoder().DecodeOne(
      R"({"transaction_id":")" + id +
      R"(","timestamp":"2026-12-01T12:00:00Z","amount":"9950.00","currency":"USD",)"
      R"("sender":{"account":"S1","country":"US"},"receiver":{"account":"R2","country":"GB"}})");
  EXPECT_TRUE(txn.ok());
  return *txn;
}

std::vector<double> ProbeFeatures(Engine& engine, const std::string& id) {
  Result<Decision> decided = engine.DecideAndWait(Probe(id), 0);
  EXPECT_TRUE(decided.ok()) << decided.status().ToString();
  if (!decided.ok()) return {};
  Result<std::optional<journal::JournalRecord>> record =
      engine.journal().FindByDecisionId(decided->decision_id);
  EXPECT_TRUE(record.ok() && record->has_value());
  return record.ok() && record->has_value() ? (*record)->features : std::vector<double>{};
}

TEST(ImportProgressTest, FormatsCountsPercentAndRate) {
  EXPECT_EQ(FormatImportProgress({1'250'000, 10'000'000, 15.0}),
            "import: 1,250,000 of 10,000,000 transactions (12.5 %), 83,333/s");
  EXPECT_EQ(FormatImportProgress({0, 0, 0}), "import: 0 of 0 transactions (100.0 %), 0/s");
  EXPECT_EQ(FormatImportProgress({999, 1000, 1.0}),
            "import: 999 of 1,000 transactions (99.9 %), 999/s");
}

TEST(HistoryImportTest, FirstDecisionSeesTheHistoryAsIfTheEngineHadDecidedIt) {
  TempDir dir;
  const std::string csv = WriteFile(dir, "history.csv", HistoryCsv(120));
  MetricsRegistry metrics;
  std::vector<double> imported_features;
  {
    std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("imported"), metrics);
    Result<HistoryImportReport> report = Import(*engine, csv);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->imported, 120u);
    EXPECT_EQ(report->rows, 120u);
  }
  {  // After a restart: the state comes back from the journal.
    std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("imported"), metrics);
    imported_features = ProbeFeatures(*engine, "probe");
  }
  std::vector<double> decided_features;
  {
    std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("decided"), metrics);
    Result<std::unique_ptr<TransactionReader>> reader = TransactionReader::Open(csv, "auto");
    ASSERT_TRUE(reader.ok());
    LabelledTransaction row;
    while (*(*reader)->Next(&row)) ASSERT_TRUE(engine->DecideAndWait(row.txn, 0).ok());
    decided_features = ProbeFeatures(*engine, "probe");
  }
  std::vector<double> fresh_features;
  {
    std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("fresh"), metrics);
    fresh_features = ProbeFeatures(*engine, "probe");
  }
  ASSERT_FALSE(imported_features.empty());
  EXPECT_EQ(imported_features, decided_features);
  EXPECT_NE(imported_features, fresh_features);  // the history made a difference

  Result<JournalReplayReport> replay = ReplayJournal(dir.Sub("imported/journal"));
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_TRUE(replay->ok()) << JournalReplayReportToJson(*replay);
  EXPECT_EQ(replay->history, 120u);
  EXPECT_EQ(replay->decisions, 1u);
}

TEST(HistoryImportTest, ImportedTransactionsAreNotDecisions) {
  TempDir dir;
  MetricsRegistry metrics;
  std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("data"), metrics);
  ASSERT_TRUE(Import(*engine, WriteFile(dir, "history.csv", HistoryCsv(10))).ok());
  // Deciding an imported transaction again would count it twice.
  Result<Decision> again = engine->DecideAndWait(
      engine_testing::MakeTransaction("h3", "139.00", "S3", "R0", "2026-12-01T09:03:00Z"), 0);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find("imported as history"), std::string::npos);
  Result<std::optional<Decision>> found = engine->FindDecisionForTransaction("default", "h3");
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
  Result<std::vector<Decision>> listed = engine->RecentDecisionsForAccount("default", "S3", 10);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

TEST(HistoryImportTest, ContinuesWhereAnEarlierImportOfTheSameInputStopped) {
  TempDir dir;
  const std::string full = WriteFile(dir, "history.csv", HistoryCsv(80));
  // An import that stopped after 30 rows journaled what the first 30 rows of the input hold.
  const std::string head = WriteFile(dir, "head.csv", HistoryCsv(30));
  MetricsRegistry metrics;
  std::vector<double> resumed;
  {
    std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("resumed"), metrics);
    ASSERT_TRUE(Import(*engine, head).ok());
    Result<HistoryImportReport> report = Import(*engine, full);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->already_imported, 30u);
    EXPECT_EQ(report->imported, 50u);
    // Once more: nothing left to do.
    report = Import(*engine, full);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->already_imported, 80u);
    EXPECT_EQ(report->imported, 0u);
    resumed = ProbeFeatures(*engine, "probe");
  }
  std::vector<double> whole;
  {
    std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("whole"), metrics);
    ASSERT_TRUE(Import(*engine, full).ok());
    whole = ProbeFeatures(*engine, "probe");
  }
  EXPECT_EQ(resumed, whole);
  Result<JournalReplayReport> replay = ReplayJournal(dir.Sub("resumed/journal"));
  ASSERT_TRUE(replay.ok());
  EXPECT_TRUE(replay->ok()) << JournalReplayReportToJson(*replay);
  EXPECT_EQ(replay->history, 80u);
}

TEST(HistoryImportTest, RefusesHistoryDatedBeforeADecisionAndChangesNothing) {
  TempDir dir;
  MetricsRegistry metrics;
  std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("data"), metrics);
  ASSERT_TRUE(
      engine
          ->DecideAndWait(
              engine_testing::MakeTransaction("d1", "10.00", "S1", "R1", "2026-12-01T09:30:00Z"), 0)
          .ok());
  Result<HistoryImportReport> report =
      Import(*engine, WriteFile(dir, "history.csv", HistoryCsv(60)));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(report.status().message().find("d1"), std::string::npos) << report.status().message();
  EXPECT_NE(report.status().message().find("line 2"), std::string::npos)
      << report.status().message();
  EXPECT_EQ(engine->journal().durable_sequence(), 1u);
}

TEST(HistoryImportTest, RefusesATransactionIdAlreadyDecided) {
  TempDir dir;
  MetricsRegistry metrics;
  std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("data"), metrics);
  // Dated before the history, so only its id stands in the way.
  ASSERT_TRUE(
      engine
          ->DecideAndWait(
              engine_testing::MakeTransaction("h7", "10.00", "S1", "R1", "2026-11-30T09:00:00Z"), 0)
          .ok());
  Result<HistoryImportReport> report =
      Import(*engine, WriteFile(dir, "history.csv", HistoryCsv(20)));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(report.status().field(), "transaction_id");
  EXPECT_NE(report.status().message().find("h7"), std::string::npos);
  EXPECT_EQ(engine->journal().durable_sequence(), 1u);
}

TEST(HistoryImportTest, RefusesBadRowsAndRepeatedIdsBeforeWritingAnything) {
  TempDir dir;
  MetricsRegistry metrics;
  std::unique_ptr<Engine> engine = OpenEngine(dir.Sub("data"), metrics);
  std::string bad = HistoryCsv(5);
  bad += "h9,2026-12-01T10:00:00Z,-5.00,USD,S1,,US,R1,,GB,wire,transfer,0,,\n";  // line 7
  Result<HistoryImportReport> report = Import(*engine, WriteFile(dir, "bad.csv", bad));
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("line 7"), std::string::npos)
      << report.status().message();
  std::string repeated = HistoryCsv(5) + HistoryCsv(1, 2).substr(kVerdictCsvHeader.size() + 1);
  report = Import(*engine, WriteFile(dir, "repeated.csv", repeated));
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("h2 twice (line 4 and line 7)"), std::string::npos)
      << report.status().message();
  EXPECT_EQ(engine->journal().durable_sequence(), 0u);

  HistoryImportOptions skip_bad;
  skip_bad.reader.path = dir.Sub("bad.csv");
  skip_bad.allow_bad_rows = true;
  report = ImportHistory(*engine, skip_bad);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->imported, 5u);
  EXPECT_EQ(report->bad_rows, 1u);
}

}  // namespace
}  // namespace verdict
