#include "cases/case_store.h"

#include <gtest/gtest.h>

#include "cases/case_json.h"
#include "journal/test_util.h"

namespace verdict::cases {
namespace {

using journal::testing_util::MakeRecord;
using journal::testing_util::TempDir;

std::unique_ptr<journal::Journal> OpenJournal(const TempDir& dir) {
  journal::JournalOptions options;
  options.data_dir = dir.Sub("journal");
  options.min_free_bytes = 0;
  auto j = journal::Journal::Open(options);
  EXPECT_TRUE(j.ok()) << j.status().message();
  return std::move(j).value();
}

// Journals records 1..n (outcome i % 3: allow, review, block); returns the last seq that
// opens a case.
uint64_t Append(journal::Journal& j, uint64_t first, uint64_t n, CaseFeed* feed) {
  uint64_t last = 0;
  for (uint64_t i = first; i < first + n; ++i) {
    journal::JournalEntry entry;
    entry.record = MakeRecord(i);
    const bool opens = entry.record.decision.outcome != Outcome::kAllow;
    auto seq = j.Enqueue(std::move(entry), [feed, opens](const Result<journal::CommitInfo>& c) {
      if (feed != nullptr && opens && c.ok()) feed->Push(c->seq);
    });
    EXPECT_TRUE(seq.ok());
    if (opens) last = *seq;  // only case-opening records reach the feed
  }
  EXPECT_TRUE(j.Flush().ok());
  return last;
}

TEST(CaseStoreTest, OpensCasesForReviewAndBlockFromTheFeed) {
  TempDir dir;
  auto j = OpenJournal(dir);
  auto feed = std::make_shared<CaseFeed>();
  auto store = CaseStore::Open(*j, feed, SystemClock::Instance());
  ASSERT_TRUE(store.ok()) << store.status().message();
  const uint64_t last = Append(*j, 1, 9, feed.get());
  (*store)->WaitUntilHandled(last);
  EXPECT_EQ((*store)->size(), 6u);  // 9 records, 3 of them allow
  auto page = (*store)->List("bank-a", CaseQuery());
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->cases.size(), 6u);
  const Case& top = page->cases[0];
  EXPECT_EQ(top.status, CaseStatus::kOpen);
  EXPECT_EQ(top.amount, "9950.00");
  EXPECT_EQ(top.currency, "USD");
  EXPECT_EQ(top.typologies, std::vector<std::string>{"STRUCTURING"});
  EXPECT_FALSE(top.sender_account.empty());
  EXPECT_NE(top.outcome, "allow");
  EXPECT_TRUE((*store)->List("bank-b", CaseQuery())->cases.empty());
}

TEST(CaseStoreTest, CatchesUpOnRecordsItMissedAndReloads) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 6, nullptr);  // no store running: a crash before the cases were stored
  {
    auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->size(), 4u);
    auto page = (*store)->List("bank-a", CaseQuery());
    auto assigned = (*store)->Assign("bank-a", page->cases[0].case_id, "alice", "alice");
    ASSERT_TRUE(assigned.ok()) << assigned.status().message();
  }
  Append(*j, 7, 3, nullptr);
  auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->size(), 6u);
  CaseQuery q;
  q.status = CaseStatus::kInReview;
  auto page = (*store)->List("bank-a", q);
  ASSERT_EQ(page->cases.size(), 1u);
  EXPECT_EQ(page->cases[0].assignee, "alice");
}

TEST(CaseStoreTest, ACaseOpenedOutsideTheFeedOpensOnceAndSurvivesAReload) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 3, nullptr);
  Case c;
  c.case_id = "rescreen-0123456789abcdef0123456789abcdef";
  c.tenant = "bank-a";
  c.outcome = "review";
  c.journal_seq = 1;
  c.typologies = {"SANCTIONS_RESCREEN"};
  c.reasons = {{"SANCTIONS_RESCREEN", "@sanctions version 2: sender 'X' matches 'X' [1]"}};
  c.history.push_back({1, "verdict-rescreen", "open", "review"});
  {
    auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
    ASSERT_TRUE(store.ok());
    const size_t before = (*store)->size();
    auto opened = (*store)->OpenCase(c, "verdict-rescreen", "cases.open_rescreen", "{}");
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    EXPECT_TRUE(*opened);
    auto again = (*store)->OpenCase(c, "verdict-rescreen", "cases.open_rescreen", "{}");
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(*again);
    EXPECT_EQ((*store)->size(), before + 1);
    auto refused = (*store)->OpenCase(c, "verdict-rescreen", "rescreen.open", "{}");
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    auto events = j->ListAdminEvents("bank-a", 10);
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 1u);  // the second opening journaled nothing
    EXPECT_EQ((*events)[0].admin.action, "cases.open_rescreen");
  }
  // The load checks the stored case against its journaled opening, and a restart does not
  // open it again.
  auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto got = (*store)->Get("bank-a", c.case_id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->reasons.size(), 1u);
  auto again = (*store)->OpenCase(c, "verdict-rescreen", "cases.open_rescreen", "{}");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(CaseStoreTest, EveryChangeIsJournaledWithItsPrincipal) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 3, nullptr);
  auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(store.ok());
  const std::string id = (*store)->List("bank-a", CaseQuery())->cases[0].case_id;
  ASSERT_TRUE((*store)->Assign("bank-a", id, "lead", "alice").ok());
  ASSERT_TRUE((*store)->Comment("bank-a", id, "alice", "invoices match").ok());
  auto closed = (*store)->Dispose("bank-a", id, "alice", Disposition::kFalsePositive, "ok");
  ASSERT_TRUE(closed.ok()) << closed.status().message();
  EXPECT_EQ(closed->status, CaseStatus::kClosed);

  auto events = j->ListAdminEvents("bank-a", 10);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].admin.action, "cases.dispose");
  EXPECT_EQ((*events)[0].principal, "alice");
  EXPECT_EQ((*events)[0].admin.object, id);
  EXPECT_NE((*events)[0].admin.details_json.find("false_positive"), std::string::npos);
  EXPECT_EQ((*events)[1].admin.action, "cases.comment");
  EXPECT_EQ((*events)[2].admin.action, "cases.assign");
  EXPECT_EQ((*events)[2].principal, "lead");
}

TEST(CaseStoreTest, RefusedChangesAreNeitherStoredNorJournaled) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 3, nullptr);
  auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(store.ok());
  const std::string id = (*store)->List("bank-a", CaseQuery())->cases[0].case_id;
  EXPECT_EQ(
      (*store)->Dispose("bank-a", id, "alice", Disposition::kTruePositive, "").status().code(),
      StatusCode::kFailedPrecondition);
  // Another tenant's analyst cannot see or change it.
  EXPECT_EQ((*store)->Get("bank-b", id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*store)->Assign("bank-b", id, "mallory", "mallory").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ((*store)->Get("bank-a", "no-such-case").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(j->ListAdminEvents("bank-a", 10)->empty());
  EXPECT_TRUE(j->ListAdminEvents("bank-b", 10)->empty());
  EXPECT_EQ((*store)->Get("bank-a", id)->status, CaseStatus::kOpen);
}

TEST(CaseStoreTest, AssigningTheAssigneeAgainJournalsNothing) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 3, nullptr);
  auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(store.ok());
  const std::string id = (*store)->List("bank-a", CaseQuery())->cases[0].case_id;
  ASSERT_TRUE((*store)->Assign("bank-a", id, "alice", "alice").ok());
  auto again = (*store)->Assign("bank-a", id, "alice", "alice");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->history.size(), 2u);  // open, assign
  EXPECT_EQ(j->ListAdminEvents("bank-a", 10)->size(), 1u);
}

TEST(CaseStoreTest, AssignManyJournalsEachChangeAndGoesOnPastRefusals) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 9, nullptr);
  auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(store.ok());
  auto page = (*store)->List("bank-a", CaseQuery());
  ASSERT_EQ(page->cases.size(), 6u);
  const std::string a = page->cases[0].case_id, b = page->cases[1].case_id,
                    c = page->cases[2].case_id;
  // c is closed: assigning it is refused.
  ASSERT_TRUE((*store)->Assign("bank-a", c, "bob", "bob").ok());
  ASSERT_TRUE((*store)->Dispose("bank-a", c, "bob", Disposition::kFalsePositive, "").ok());
  // b is alice's already: unchanged.
  ASSERT_TRUE((*store)->Assign("bank-a", b, "alice", "alice").ok());
  const size_t events_before = j->ListAdminEvents("bank-a", 100)->size();
  auto results = (*store)->AssignMany("bank-a", {a, "no-such-case", c, b}, "alice", "alice");
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].case_id, a);
  EXPECT_TRUE(results[0].status.ok());
  EXPECT_TRUE(results[0].changed);
  ASSERT_TRUE(results[0].c.has_value());
  EXPECT_EQ(results[0].c->assignee, "alice");
  EXPECT_EQ(results[1].status.code(), StatusCode::kNotFound);
  EXPECT_FALSE(results[1].c.has_value());
  EXPECT_EQ(results[2].status.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(results[3].status.ok());
  EXPECT_FALSE(results[3].changed);
  // Only a's assignment is journaled, as a single assignment is.
  auto events = j->ListAdminEvents("bank-a", 100);
  ASSERT_EQ(events->size(), events_before + 1);
  EXPECT_EQ((*events)[0].admin.action, "cases.assign");
  EXPECT_EQ((*events)[0].admin.object, a);
  EXPECT_EQ((*events)[0].principal, "alice");
  // Another tenant's cases are not found, as one by one.
  auto other = (*store)->AssignMany("bank-b", {a}, "mallory", "mallory");
  EXPECT_EQ(other[0].status.code(), StatusCode::kNotFound);
  EXPECT_EQ((*store)->Get("bank-a", a)->assignee, "alice");
}

TEST(CaseStoreTest, ACaseCarriesTheRecordsRiskAndReasons) {
  TempDir dir;
  auto j = OpenJournal(dir);
  journal::JournalRecord with_risk = MakeRecord(2);
  with_risk.decision.risk = 0.875;
  ASSERT_NE(with_risk.decision.outcome, Outcome::kAllow);
  ASSERT_FALSE(with_risk.decision.reasons.empty());
  auto c = CaseFromRecord(with_risk);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->has_value());
  EXPECT_EQ((*c)->risk, 0.875);
  ASSERT_EQ((*c)->reasons.size(), with_risk.decision.reasons.size());
  EXPECT_EQ((*c)->reasons[0].message, with_risk.decision.reasons[0].message);
  auto without = CaseFromRecord(MakeRecord(2));
  EXPECT_FALSE((*without)->risk.has_value());
  // Both survive the journal and the registry.
  journal::JournalEntry entry;
  entry.record = with_risk;
  ASSERT_TRUE(j->Enqueue(std::move(entry), [](const Result<journal::CommitInfo>&) {}).ok());
  ASSERT_TRUE(j->Flush().ok());
  {
    auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
    ASSERT_TRUE(store.ok());
    auto page = (*store)->List("bank-a", CaseQuery());
    ASSERT_EQ(page->cases.size(), 1u);
    EXPECT_EQ(page->cases[0].risk, 0.875);
  }
  auto reopened = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  auto page = (*reopened)->List("bank-a", CaseQuery());
  ASSERT_EQ(page->cases.size(), 1u);
  EXPECT_EQ(page->cases[0].risk, 0.875);
  EXPECT_EQ(page->cases[0].reasons.size(), with_risk.decision.reasons.size());
}

TEST(CaseStoreTest, ACaseStoredWithoutReasonsByAnEarlierVersionStillLoads) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 3, nullptr);
  std::string id;
  {
    auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
    ASSERT_TRUE(store.ok());
    id = (*store)->List("bank-a", CaseQuery())->cases[0].case_id;
  }
  // What a version whose cases kept reason codes only stored for the same record.
  const std::string key = std::string(kCasePrefix) + "bank-a/" + id;
  auto stored = j->GetRegistry(key);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  auto older = CaseFromJson(**stored);
  ASSERT_TRUE(older.ok());
  ASSERT_FALSE(older->reasons.empty());
  older->reasons.clear();
  const std::string older_json = CaseToJson(*older);
  ASSERT_EQ(older_json.find("\"reasons\""), std::string::npos);
  ASSERT_TRUE(j->PutRegistry(key, older_json, /*sync=*/true).ok());
  auto reopened = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  EXPECT_TRUE((*reopened)->Get("bank-a", id)->reasons.empty());
  // A case changed in any other way is still refused.
  older->score += 0.5;
  ASSERT_TRUE(j->PutRegistry(key, CaseToJson(*older), /*sync=*/true).ok());
  reopened->reset();
  EXPECT_FALSE(CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance()).ok());
}

TEST(CaseStoreTest, DispositionsBecomeLabelsByTransactionId) {
  TempDir dir;
  auto j = OpenJournal(dir);
  Append(*j, 1, 6, nullptr);
  auto store = CaseStore::Open(*j, std::make_shared<CaseFeed>(), SystemClock::Instance());
  ASSERT_TRUE(store.ok());
  auto page = (*store)->List("bank-a", CaseQuery());
  ASSERT_EQ(page->cases.size(), 4u);
  const Case& a = page->cases[0];
  const Case& b = page->cases[1];
  ASSERT_TRUE((*store)->Assign("bank-a", a.case_id, "al", "al").ok());
  ASSERT_TRUE((*store)->Dispose("bank-a", a.case_id, "al", Disposition::kEscalated, "").ok());
  ASSERT_TRUE((*store)->Assign("bank-a", b.case_id, "al", "al").ok());
  ASSERT_TRUE((*store)->Dispose("bank-a", b.case_id, "al", Disposition::kFalsePositive, "").ok());
  auto labels = LoadCaseLabels(*j, "bank-a");
  ASSERT_TRUE(labels.ok());
  ASSERT_EQ(labels->size(), 2u);  // open cases give no label
  EXPECT_EQ(labels->at(a.transaction_id), 1);
  EXPECT_EQ(labels->at(b.transaction_id), 0);
  EXPECT_TRUE(LoadCaseLabels(*j, "bank-b")->empty());
}

}  // namespace
}  // namespace verdict::cases
