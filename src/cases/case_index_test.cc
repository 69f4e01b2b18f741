#include "cases/case_index.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>

namespace verdict::cases {
namespace {

Case Make(std::string id, double score, int64_t opened, std::string tenant = "a") {
  Case c;
  c.case_id = std::move(id);
  c.tenant = std::move(tenant);
  c.score = score;
  c.opened_at_us = opened;
  c.sender_account = "S-" + c.case_id;
  c.receiver_account = "R";
  c.typologies = {score > 0.5 ? "HIGH" : "LOW"};
  return c;
}

std::vector<std::string> Ids(const CasePage& page) {
  std::vector<std::string> ids;
  for (const Case& c : page.cases) ids.push_back(c.case_id);
  return ids;
}

TEST(CaseIndexTest, SortsByScoreAgeAndNewest) {
  CaseIndex index;
  index.Put(Make("c1", 0.2, 300));
  index.Put(Make("c2", 0.9, 200));
  index.Put(Make("c3", 0.9, 100));
  CaseQuery q;
  q.sort = CaseSort::kScore;
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c3", "c2", "c1"}));
  q.sort = CaseSort::kAge;
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c3", "c2", "c1"}));
  q.sort = CaseSort::kNewest;
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c1", "c2", "c3"}));
}

TEST(CaseIndexTest, PagesVisitEveryCaseOnceEvenWithInsertsBetween) {
  CaseIndex index;
  for (int i = 0; i < 25; ++i) index.Put(Make("c" + std::to_string(i), (i % 7) / 7.0, i));
  for (CaseSort sort : {CaseSort::kSeverity, CaseSort::kScore, CaseSort::kAge, CaseSort::kNewest}) {
    CaseQuery q;
    q.sort = sort;
    q.limit = 4;
    std::multiset<std::string> seen;
    int pages = 0;
    while (true) {
      auto page = index.List("a", q);
      ASSERT_TRUE(page.ok()) << page.status().message();
      EXPECT_EQ(page->total, 25u);
      for (const Case& c : page->cases) seen.insert(c.case_id);
      ++pages;
      if (page->next_cursor.empty()) break;
      q.cursor = page->next_cursor;
    }
    EXPECT_EQ(seen.size(), 25u);
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 25u);
    EXPECT_EQ(pages, 7);
  }
}

TEST(CaseIndexTest, FiltersByStatusTypologyAndAccount) {
  CaseIndex index;
  Case closed = Make("c1", 0.9, 1);
  closed.status = CaseStatus::kClosed;
  index.Put(closed);
  index.Put(Make("c2", 0.9, 2));
  index.Put(Make("c3", 0.1, 3));
  CaseQuery q;
  q.status = CaseStatus::kOpen;
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c2", "c3"}));
  q.typology = "HIGH";
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c2"}));
  q = CaseQuery();
  q.account = "S-c3";
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c3"}));
  q.account = "R";
  EXPECT_EQ(index.List("a", q)->total, 3u);
}

TEST(CaseIndexTest, TenantsAreSeparate) {
  CaseIndex index;
  index.Put(Make("c1", 0.5, 1, "a"));
  index.Put(Make("c2", 0.5, 1, "b"));
  EXPECT_EQ(Ids(*index.List("a", CaseQuery())), (std::vector<std::string>{"c1"}));
  EXPECT_EQ(index.Find("b", "c1"), nullptr);
  EXPECT_NE(index.Find("a", "c1"), nullptr);
  EXPECT_TRUE(index.List("nobody", CaseQuery())->cases.empty());
}

TEST(CaseIndexTest, ReplacingACaseKeepsTheCount) {
  CaseIndex index;
  index.Put(Make("c1", 0.5, 1));
  Case c = Make("c1", 0.5, 1);
  c.status = CaseStatus::kClosed;
  index.Put(c);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(index.Find("a", "c1")->status, CaseStatus::kClosed);
}

TEST(CaseIndexTest, RefusesBadCursorsAndLimits) {
  CaseIndex index;
  for (int i = 0; i < 3; ++i) index.Put(Make("c" + std::to_string(i), 0.5, i));
  CaseQuery q;
  q.limit = 1;
  auto page = index.List("a", q);
  ASSERT_FALSE(page->next_cursor.empty());
  q.sort = CaseSort::kScore;  // a cursor made for another sort
  q.cursor = page->next_cursor;
  EXPECT_EQ(index.List("a", q).status().field(), "cursor");
  q.sort = CaseSort::kAge;
  q.cursor = page->next_cursor;
  EXPECT_EQ(index.List("a", q).status().field(), "cursor");
  q.cursor = "zz";
  EXPECT_EQ(index.List("a", q).status().field(), "cursor");
  q.cursor = "abc";
  EXPECT_EQ(index.List("a", q).status().field(), "cursor");
  q.cursor.clear();
  q.limit = 0;
  EXPECT_EQ(index.List("a", q).status().field(), "limit");
  q.limit = kMaxPageSize + 1;
  EXPECT_EQ(index.List("a", q).status().field(), "limit");
}

Case Flagged(std::string id, std::string outcome, double score, std::optional<double> risk,
             int64_t opened) {
  Case c = Make(std::move(id), score, opened);
  c.outcome = std::move(outcome);
  c.risk = risk;
  return c;
}

TEST(CaseIndexTest, TheDefaultSortIsSeverityThenRiskThenOldest) {
  EXPECT_EQ(CaseQuery().sort, CaseSort::kSeverity);
  EXPECT_EQ(CaseSortName(CaseSort::kSeverity), "severity");
  EXPECT_EQ(*ParseCaseSort("severity"), CaseSort::kSeverity);
  CaseIndex index;
  // A sanctions block whose model score is low still comes before every review.
  index.Put(Flagged("block-low", "block", 0.01, 0.02, 50));
  index.Put(Flagged("review-high", "review", 0.99, 0.99, 10));
  // Under review: the risk ranks, not the score.
  index.Put(Flagged("review-risky", "review", 0.30, 0.95, 20));
  // No risk (an older record): its score stands in.
  index.Put(Flagged("review-norisk", "review", 0.97, std::nullopt, 30));
  // Ties on severity and risk: the oldest first.
  index.Put(Flagged("tie-new", "review", 0.5, 0.5, 41));
  index.Put(Flagged("tie-old", "review", 0.5, 0.5, 40));
  index.Put(Flagged("block-high", "block", 0.9, 0.8, 60));
  EXPECT_EQ(Ids(*index.List("a", CaseQuery())),
            (std::vector<std::string>{"block-high", "block-low", "review-high", "review-norisk",
                                      "review-risky", "tie-old", "tie-new"}));
  // The score sort is as it was: the block with the low score is last.
  CaseQuery q;
  q.sort = CaseSort::kScore;
  EXPECT_EQ(Ids(*index.List("a", q)).back(), "block-low");
}

TEST(CaseIndexTest, SeverityCursorsResumeExactlyAcrossPages) {
  CaseIndex index;
  std::vector<std::string> expected_all;
  for (int i = 0; i < 30; ++i) {
    // Many equal risks, both outcomes, some without a risk.
    std::optional<double> risk;
    if (i % 4 != 0) risk = (i % 3) / 3.0;
    index.Put(Flagged("c" + std::to_string(i), i % 5 == 0 ? "block" : "review", (i % 7) / 7.0, risk,
                      1000 - i % 6));
  }
  CaseQuery all;
  all.limit = kMaxPageSize;
  auto whole = index.List("a", all);
  ASSERT_TRUE(whole.ok());
  for (const Case& c : whole->cases) expected_all.push_back(c.case_id);
  ASSERT_EQ(expected_all.size(), 30u);
  CaseQuery q;
  q.limit = 4;
  std::vector<std::string> paged;
  while (true) {
    auto page = index.List("a", q);
    ASSERT_TRUE(page.ok()) << page.status().message();
    for (const Case& c : page->cases) paged.push_back(c.case_id);
    if (page->next_cursor.empty()) break;
    q.cursor = page->next_cursor;
  }
  EXPECT_EQ(paged, expected_all);
  // Every block before every review, each group by risk-or-score descending.
  for (size_t i = 1; i < expected_all.size(); ++i) {
    const Case& a = *index.Find("a", expected_all[i - 1]);
    const Case& b = *index.Find("a", expected_all[i]);
    ASSERT_GE(SeverityOf(a), SeverityOf(b));
    if (SeverityOf(a) == SeverityOf(b)) {
      ASSERT_GE(RiskOrScore(a), RiskOrScore(b));
    }
  }
}

TEST(CaseIndexTest, FiltersByAssigneeUnassignedAndOpenedRange) {
  CaseIndex index;
  Case mine = Make("mine", 0.5, 100);
  mine.assignee = "key:alice";
  Case theirs = Make("theirs", 0.5, 200);
  theirs.assignee = "key:bob";
  index.Put(mine);
  index.Put(theirs);
  index.Put(Make("free", 0.5, 300));
  CaseQuery q;
  q.sort = CaseSort::kAge;
  q.assignee = "key:alice";
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"mine"}));
  q.assignee = "";
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"free"}));
  q.assignee.reset();
  q.opened_from_us = 200;  // inclusive
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"theirs", "free"}));
  q.opened_to_us = 300;  // exclusive
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"theirs"}));
  EXPECT_EQ(index.List("a", q)->total, 1u);
  q.opened_from_us = 0;
  q.assignee = "key:bob";
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"theirs"}));
}

}  // namespace
}  // namespace verdict::cases
