#include "reports/report_data.h"

#include <gtest/gtest.h>

#include "cases/case_store.h"
#include "journal/test_util.h"

namespace verdict::reports {
namespace {

using journal::testing_util::TempDir;
using journal::testing_util::WriteEntries;

std::unique_ptr<journal::Journal> OpenReportJournal(const TempDir& dir, uint64_t every) {
  journal::JournalOptions options;
  options.data_dir = dir.Sub("journal");
  options.min_free_bytes = 0;
  options.checkpoint_every_records = every;
  auto j = journal::Journal::Open(options);
  EXPECT_TRUE(j.ok()) << j.status().message();
  return std::move(j).value();
}

cases::Case CaseOfRecord(const journal::Journal& j, uint64_t seq) {
  auto record = j.ReadRecord(seq);
  EXPECT_TRUE(record.ok() && record->has_value());
  auto c = cases::CaseFromRecord(**record);
  EXPECT_TRUE(c.ok() && c->has_value());
  return **c;
}

TEST(ReportDataTest, GathersTheJournaledTransactionAndProvesItAgainstTheCheckpoint) {
  TempDir dir;
  auto j = OpenReportJournal(dir, 4);
  for (const auto& r : WriteEntries(*j, 1, 9)) ASSERT_TRUE(r.ok());
  ASSERT_TRUE(j->Flush().ok());
  const cases::Case c = CaseOfRecord(*j, 4);  // 4 % 3: review
  auto data = GatherReportData(*j, c, {});
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->transaction.transaction_id, "tx-4");
  EXPECT_EQ(data->transaction.amount, "9950.00");
  EXPECT_EQ(data->transaction.sender.name, "John Smith");
  EXPECT_EQ(data->transaction.receiver.bank, "BANKGB22");
  EXPECT_EQ(data->contributions_source, "journal");
  EXPECT_EQ(data->decision.reasons.at(0).code, "STRUCTURING");
  EXPECT_EQ(data->proof.seq, 4u);
  EXPECT_EQ(data->proof.anchor, ProofAnchor::kCheckpoint);
  EXPECT_GE(data->proof.tree_size, 4u);
  EXPECT_TRUE(data->proof.signature_valid);
  EXPECT_TRUE(data->proof.verified);
  EXPECT_FALSE(data->proof.path.empty());
  auto checkpoint = j->LatestCheckpoint();
  ASSERT_TRUE(checkpoint.ok() && checkpoint->has_value());
  EXPECT_EQ(data->proof.root, journal::ToHex((*checkpoint)->root));
  ASSERT_FALSE(data->activity.empty());
  EXPECT_EQ(data->activity.back().transaction_id, "tx-4");  // newest first; the first is tx-4
}

TEST(ReportDataTest, ARecordNoCheckpointCoversIsProvedAgainstTheHead) {
  TempDir dir;
  auto j = OpenReportJournal(dir, 1'000);
  for (const auto& r : WriteEntries(*j, 1, 5)) ASSERT_TRUE(r.ok());
  ASSERT_TRUE(j->Flush().ok());
  auto data = GatherReportData(*j, CaseOfRecord(*j, 5), {});
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->proof.anchor, ProofAnchor::kHead);
  EXPECT_EQ(data->proof.tree_size, 5u);
  EXPECT_TRUE(data->proof.verified);
}

TEST(ReportDataTest, ACaseWhoseRecordIsNotItsOwnIsRefused) {
  TempDir dir;
  auto j = OpenReportJournal(dir, 1'000);
  for (const auto& r : WriteEntries(*j, 1, 5)) ASSERT_TRUE(r.ok());
  cases::Case c = CaseOfRecord(*j, 4);
  c.tenant = "bank-b";  // another tenant's record (I7)
  auto data = GatherReportData(*j, c, {});
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), StatusCode::kDataLoss);
  c = CaseOfRecord(*j, 4);
  c.journal_seq = 5;  // another decision's record
  EXPECT_FALSE(GatherReportData(*j, c, {}).ok());
}

TEST(ReportDataTest, AMissingExplanationIsRecomputedByTheExplainer) {
  TempDir dir;
  auto j = OpenReportJournal(dir, 1'000);
  journal::JournalEntry entry = journal::testing_util::MakeEntry(1);
  entry.record.decision.outcome = Outcome::kBlock;
  entry.record.decision.contributions.clear();
  ASSERT_TRUE(j->Enqueue(std::move(entry), [](const Result<journal::CommitInfo>&) {}).ok());
  ASSERT_TRUE(j->Flush().ok());
  const cases::Case c = CaseOfRecord(*j, 1);
  auto none = GatherReportData(*j, c, {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->contributions_source, "none");
  auto data = GatherReportData(*j, c, [](const journal::JournalRecord&) {
    return std::vector<Contribution>{{"amount_log", 9.2, 0.5}};
  });
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->contributions_source, "recomputed");
  ASSERT_EQ(data->decision.contributions.size(), 1u);
}

TEST(ReportDataTest, TheJournaledTransactionMustBeReadable) {
  EXPECT_EQ(ParseJournaledTransaction("not json").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(ParseJournaledTransaction(R"({"transaction_id":"t"})").status().code(),
            StatusCode::kDataLoss);
}

}  // namespace
}  // namespace verdict::reports
