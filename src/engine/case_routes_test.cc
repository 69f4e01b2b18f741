// The query parsing of GET /v1/cases (the routes themselves: tests/integration/test_cases.py).
#include "engine/case_routes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace verdict {
namespace {

TEST(CaseQueryTest, EmptyQueryIsTheDefaultQueue) {
  auto q = ParseCaseQuery("");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_FALSE(q->status.has_value());
  EXPECT_EQ(q->sort, cases::CaseSort::kSeverity);
  EXPECT_EQ(q->limit, cases::kDefaultPageSize);
}

TEST(CaseQueryTest, ReadsEveryParameterAndDecodesValues) {
  auto q = ParseCaseQuery(
      "status=in_review&typology=STRUCTURING&account=ACC%20one%2F2&limit=7&cursor=abcd&sort=age");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(*q->status, cases::CaseStatus::kInReview);
  EXPECT_EQ(q->typology, "STRUCTURING");
  EXPECT_EQ(q->account, "ACC one/2");
  EXPECT_EQ(q->limit, 7u);
  EXPECT_EQ(q->cursor, "abcd");
  EXPECT_EQ(q->sort, cases::CaseSort::kAge);
}

TEST(CaseQueryTest, EmptyStatusAndSortMeanAny) {
  auto q = ParseCaseQuery("status=&sort=&account=");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_FALSE(q->status.has_value());
  EXPECT_EQ(q->sort, cases::CaseSort::kSeverity);
}

TEST(CaseQueryTest, BadValuesNameTheirField) {
  struct Bad {
    std::string query;
    const char* field;
  };
  for (const Bad& bad :
       {Bad{"limit=0", "limit"}, Bad{"limit=501", "limit"}, Bad{"limit=x", "limit"},
        Bad{"status=shut", "status"}, Bad{"sort=random", "sort"}, Bad{"colour=red", "colour"},
        Bad{"account=%zz", "account"}, Bad{"account=%4", "account"}, Bad{"from=yesterday", "from"},
        Bad{"to=2026-13-01", "to"}, Bad{"from=2026-02-01&to=2026-01-31", "to"},
        Bad{"from=2026-01-31T10:00:00Z&to=2026-01-31T10:00:00Z", "to"},
        Bad{"assignee=" + std::string(300, 'a'), "assignee"}}) {
    auto q = ParseCaseQuery(bad.query);
    ASSERT_FALSE(q.ok()) << bad.query;
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument) << bad.query;
    EXPECT_EQ(q.status().field(), bad.field) << bad.query;
  }
}

TEST(CaseQueryTest, AssigneeMeNoneOrAPrincipal) {
  auto mine = ParseCaseQuery("assignee=me", "key:alice");
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(mine->assignee, "key:alice");
  auto none = ParseCaseQuery("assignee=none", "key:alice");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->assignee, "");
  auto bob = ParseCaseQuery("assignee=key%3Abob", "key:alice");
  ASSERT_TRUE(bob.ok());
  EXPECT_EQ(bob->assignee, "key:bob");
  auto any = ParseCaseQuery("assignee=", "key:alice");
  ASSERT_TRUE(any.ok());
  EXPECT_FALSE(any->assignee.has_value());
  EXPECT_EQ(ParseCaseQuery("sort=severity")->sort, cases::CaseSort::kSeverity);
}

TEST(CaseQueryTest, FromAndToTakeTimesOrWholeDays) {
  auto q = ParseCaseQuery("from=2026-01-31&to=2026-01-31");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->opened_to_us - q->opened_from_us, int64_t{86'400'000'000});
  auto t = ParseCaseQuery("from=2026-01-31T10%3A00%3A00Z&to=2026-01-31T10:00:01Z");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->opened_to_us - t->opened_from_us, 1'000'000);
  EXPECT_EQ(t->opened_from_us, q->opened_from_us + int64_t{36'000'000'000});
}

TEST(BulkAssignTest, ReadsIdsAndAssigneeDefaultingToTheCaller) {
  auto r = ParseBulkAssign(R"({"case_ids":["a","b"]})", "key:alice");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->case_ids, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r->assignee, "key:alice");
  auto to_bob = ParseBulkAssign(R"({"assignee":"key:bob","case_ids":["a"]})", "key:alice");
  ASSERT_TRUE(to_bob.ok());
  EXPECT_EQ(to_bob->assignee, "key:bob");
}

TEST(BulkAssignTest, BadBodiesNameTheirField) {
  std::string many = R"({"case_ids":[)";
  for (size_t i = 0; i <= cases::kMaxBulkAssign; ++i) {
    many += (i ? ",\"" : "\"") + std::to_string(i) + "\"";
  }
  many += "]}";
  struct Bad {
    std::string body;
    const char* field;
  };
  for (const Bad& bad :
       {Bad{"{}", "case_ids"}, Bad{R"({"case_ids":[]})", "case_ids"},
        Bad{R"({"case_ids":"a"})", "case_ids"}, Bad{R"({"case_ids":[1]})", "case_ids"},
        Bad{R"({"case_ids":[""]})", "case_ids"}, Bad{R"({"case_ids":["a","a"]})", "case_ids"},
        Bad{many, "case_ids"}, Bad{R"({"case_ids":["a"],"assignee":7})", "assignee"},
        Bad{R"({"case_ids":["a"],"assignee":""})", "assignee"},
        Bad{R"({"case_ids":["a"],"assignee":"tab\there"})", "assignee"},
        Bad{R"({"case_ids":["a"],"colour":"red"})", "colour"}}) {
    auto r = ParseBulkAssign(bad.body, "key:alice");
    ASSERT_FALSE(r.ok()) << bad.body.substr(0, 80);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().field(), bad.field) << bad.body.substr(0, 80);
  }
  EXPECT_FALSE(ParseBulkAssign("[]", "key:alice").ok());
}

TEST(CaseQueryTest, DecodesPlusAndEscapes) {
  auto v = DecodeQueryValue("a+b%41%2b", "x");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "a bA+");
  EXPECT_FALSE(DecodeQueryValue("%", "x").ok());
}

}  // namespace
}  // namespace verdict
