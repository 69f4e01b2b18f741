// Stored cases edited as an insider with disk access would (the registry row rewritten,
// nothing journaled) are refused at load naming the case; cases as opened and changed through
// the store, and changes journaled before they carried a digest, still load.
#include "cases/case_ledger.h"

#include <gtest/gtest.h>

#include "cases/case_json.h"
#include "cases/case_store.h"
#include "journal/test_util.h"

namespace verdict::cases {
namespace {

using journal::testing_util::MakeRecord;
using journal::testing_util::TempDir;

class CaseLedgerTest : public ::testing::Test {
 protected:
  // Records 1..3 of bank-a (1 and 2 open cases, 3 is an allow); the store opened on them.
  void SetUp() override {
    journal::JournalOptions options;
    options.data_dir = dir_.Sub("journal");
    options.min_free_bytes = 0;
    auto j = journal::Journal::Open(options);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    journal_ = std::move(j).value();
    for (uint64_t i = 1; i <= 3; ++i) {
      journal::JournalEntry entry;
      entry.record = MakeRecord(i);
      ASSERT_TRUE(
          journal_->Enqueue(std::move(entry), [](const Result<journal::CommitInfo>&) {}).ok());
    }
    ASSERT_TRUE(journal_->Flush().ok());
  }
  Result<std::unique_ptr<CaseStore>> Open() {
    return CaseStore::Open(*journal_, std::make_shared<CaseFeed>(), SystemClock::Instance());
  }
  std::string CaseIdOf(uint64_t record) {
    return MakeRecord(record).decision.decision_id.ToString();
  }
  std::string KeyOf(uint64_t record) {
    return std::string(kCasePrefix) + "bank-a/" + CaseIdOf(record);
  }
  // The stored case of `record` with `from` replaced by `to`, written back behind the store.
  void Edit(uint64_t record, const std::string& from, const std::string& to) {
    auto stored = journal_->GetRegistry(KeyOf(record));
    ASSERT_TRUE(stored.ok() && stored->has_value());
    std::string edited = **stored;
    const size_t at = edited.find(from);
    ASSERT_NE(at, std::string::npos) << edited;
    edited.replace(at, from.size(), to);
    ASSERT_TRUE(journal_->PutRegistry(KeyOf(record), edited).ok());
  }
  void ExpectRefusedNaming(uint64_t record) {
    auto refused = Open();
    ASSERT_EQ(refused.status().code(), StatusCode::kDataLoss) << refused.status().ToString();
    EXPECT_NE(refused.status().message().find(CaseIdOf(record)), std::string::npos)
        << refused.status().ToString();
  }

  TempDir dir_;
  std::unique_ptr<journal::Journal> journal_;
};

TEST_F(CaseLedgerTest, CasesAsOpenedAndChangedLoad) {
  {
    auto store = Open();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->Assign("bank-a", CaseIdOf(2), "lead", "al").ok());
    ASSERT_TRUE((*store)->Dispose("bank-a", CaseIdOf(2), "al", Disposition::kEscalated, "x").ok());
  }
  auto reopened = Open();
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->Get("bank-a", CaseIdOf(2))->disposition, Disposition::kEscalated);
  EXPECT_EQ((*reopened)->Get("bank-a", CaseIdOf(1))->status, CaseStatus::kOpen);
}

TEST_F(CaseLedgerTest, ADispositionEditedIsRefused) {
  {
    auto store = Open();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->Assign("bank-a", CaseIdOf(2), "lead", "al").ok());
    ASSERT_TRUE((*store)->Dispose("bank-a", CaseIdOf(2), "al", Disposition::kEscalated, "x").ok());
  }
  Edit(2, "\"escalated\"", "\"false_positive\"");
  ExpectRefusedNaming(2);
}

TEST_F(CaseLedgerTest, AnOpenCaseClosedBehindTheJournalIsRefused) {
  ASSERT_TRUE(Open().ok());
  Edit(1, "\"status\":\"open\"", "\"status\":\"closed\"");
  ExpectRefusedNaming(1);
}

TEST_F(CaseLedgerTest, ACasePlantedIsRefused) {
  ASSERT_TRUE(Open().ok());
  // Record 3 is an allow: it opens no case, so no case of it can be stored.
  auto stored = journal_->GetRegistry(KeyOf(2));
  ASSERT_TRUE(stored.ok() && stored->has_value());
  Result<Case> planted = CaseFromJson(**stored);
  ASSERT_TRUE(planted.ok());
  planted->case_id = planted->decision_id = CaseIdOf(3);
  planted->journal_seq = 3;
  ASSERT_TRUE(journal_->PutRegistry(KeyOf(3), CaseToJson(*planted)).ok());
  ExpectRefusedNaming(3);
}

// An assigned case deleted from the registry would leave the queue with nothing noticed.
TEST_F(CaseLedgerTest, AChangedCaseDeletedIsRefused) {
  {
    auto store = Open();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->Assign("bank-a", CaseIdOf(2), "lead", "al").ok());
  }
  ASSERT_TRUE(journal_->DeleteRegistry(KeyOf(2)).ok());
  ExpectRefusedNaming(2);
}

TEST_F(CaseLedgerTest, AChangeJournaledWithoutADigestStillLoads) {
  ASSERT_TRUE(Open().ok());
  Edit(1, "\"assignee\":null", "\"assignee\":\"bob\"");
  // As older stores journaled changes: no digest in the details.
  ASSERT_TRUE(journal_
                  ->RecordAdminEvent(
                      {"bank-a", "lead", "cases.assign", CaseIdOf(1), R"({"assignee":"bob"})"})
                  .ok());
  auto store = Open();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->Get("bank-a", CaseIdOf(1))->assignee, "bob");
}

TEST(CaseDigestTest, IsAddedToTheChangesDetails) {
  EXPECT_EQ(WithCaseDigest("{}", "x").find("{\"record_sha256\":\""), 0u);
  const std::string with = WithCaseDigest(R"({"a":1})", "x");
  EXPECT_EQ(with.find(R"({"a":1,"record_sha256":")"), 0u) << with;
  EXPECT_EQ(with.back(), '}');
}

}  // namespace
}  // namespace verdict::cases
