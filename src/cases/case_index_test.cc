#include "cases/case_index.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c3", "c2", "c1"}));
  q.sort = CaseSort::kAge;
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c3", "c2", "c1"}));
  q.sort = CaseSort::kNewest;
  EXPECT_EQ(Ids(*index.List("a", q)), (std::vector<std::string>{"c1", "c2", "c3"}));
}

TEST(CaseIndexTest, PagesVisitEveryCaseOnceEvenWithInsertsBetween) {
  CaseIndex index;
  for (int i = 0; i < 25; ++i) index.Put(Make("c" + std::to_string(i), (i % 7) / 7.0, i));
  for (CaseSort sort : {CaseSort::kScore, CaseSort::kAge, CaseSort::kNewest}) {
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
  q.sort = CaseSort::kAge;  // a cursor made for another sort
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

}  // namespace
}  // namespace verdict::cases
