#include "engine/journal_replay.h"

#include <gtest/gtest.h>

#include <string>

#include "api/transaction_json.h"
#include "engine/engine.h"
#include "journal/store.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using journal::testing_util::TempDir;

// Decides `count` transactions among a few accounts, out of time order now and then, and
// closes the engine so the journal is complete on disk.
void DecideSome(const std::string& data_dir, int count) {
  EngineOptions options;
  options.data_dir = data_dir;
  options.sched.workers = 1;
  MetricsRegistry metrics;
  Result<std::unique_ptr<Engine>> engine =
      Engine::Create(options, metrics, SystemClock::Instance());
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  TransactionDecoder decoder;
  for (int i = 0; i < count; ++i) {
    int minute = (i * 7) % 50;  // not monotonic: features must be as of each timestamp
    std::string json =
        R"({"transaction_id":"t)" + std::to_string(i) + R"(","timestamp":"2026-12-02T10:)" +
        (minute < 10 ? "0" : "") + std::to_string(minute) + R"(:00Z","amount":")" +
        std::to_string(9000 + 37 * i) + R"(.00","currency":"USD",)" + R"("sender":{"account":"S)" +
        std::to_string(i % 4) + R"("},"receiver":{"account":"R)" + std::to_string(i % 3) + R"("}})";
    Result<Transaction> txn = decoder.DecodeOne(json);
    ASSERT_TRUE(txn.ok()) << txn.status().ToString();
    ASSERT_TRUE((*engine)->DecideAndWait(*txn, 0).ok());
  }
}

TEST(JournalReplayTest, RecomputesTheJournaledFeaturesAndStates) {
  TempDir dir;
  DecideSome(dir.path(), 60);
  Result<JournalReplayReport> report = ReplayJournal(dir.Sub("journal"));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << JournalReplayReportToJson(*report);
  EXPECT_EQ(report->decisions, 60u);
  EXPECT_EQ(report->accounts, 7u);
}

TEST(JournalReplayTest, ReportsAStoredStateTheJournalDoesNotExplain) {
  TempDir dir;
  DecideSome(dir.path(), 10);
  {
    journal::StoreOptions options;
    options.data_dir = dir.Sub("journal");
    options.create_if_missing = false;
    Result<std::unique_ptr<journal::JournalStore>> store = journal::JournalStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    rocksdb::WriteBatch batch;
    // State keys are tenant/account; offline decisions belong to tenant "default".
    Result<std::optional<std::string>> s1 = (*store)->Get(journal::Cf::kState, "default/S1");
    ASSERT_TRUE(s1.ok() && s1->has_value());
    batch.Put((*store)->handle(journal::Cf::kState), "default/S2", **s1);  // S1's state in S2
    batch.Put((*store)->handle(journal::Cf::kState), "ghost", **s1);
    ASSERT_TRUE((*store)->Write(batch, true).ok());
  }
  Result<JournalReplayReport> report = ReplayJournal(dir.Sub("journal"));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->ok());
  EXPECT_EQ(report->feature_mismatches, 0u);
  EXPECT_EQ(report->state_mismatches, 2u);
  EXPECT_EQ(report->first_state_mismatch, "default/S2: stored state differs");
}

TEST(JournalReplayTest, FailsClearlyWithoutAJournal) {
  TempDir dir;
  Result<JournalReplayReport> report = ReplayJournal(dir.Sub("nothing"));
  EXPECT_FALSE(report.ok());
}

}  // namespace
}  // namespace verdict
