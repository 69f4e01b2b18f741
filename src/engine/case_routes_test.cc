// The query parsing of GET /v1/cases (the routes themselves: tests/integration/test_cases.py).
#include "engine/case_routes.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(CaseQueryTest, EmptyQueryIsTheDefaultQueue) {
  auto q = ParseCaseQuery("");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_FALSE(q->status.has_value());
  EXPECT_EQ(q->sort, cases::CaseSort::kScore);
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
  EXPECT_EQ(q->sort, cases::CaseSort::kScore);
}

TEST(CaseQueryTest, BadValuesNameTheirField) {
  struct Bad {
    const char* query;
    const char* field;
  };
  for (const Bad& bad :
       {Bad{"limit=0", "limit"}, Bad{"limit=501", "limit"}, Bad{"limit=x", "limit"},
        Bad{"status=shut", "status"}, Bad{"sort=random", "sort"}, Bad{"colour=red", "colour"},
        Bad{"account=%zz", "account"}, Bad{"account=%4", "account"}}) {
    auto q = ParseCaseQuery(bad.query);
    ASSERT_FALSE(q.ok()) << bad.query;
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument) << bad.query;
    EXPECT_EQ(q.status().field(), bad.field) << bad.query;
  }
}

TEST(CaseQueryTest, DecodesPlusAndEscapes) {
  auto v = DecodeQueryValue("a+b%41%2b", "x");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "a bA+");
  EXPECT_FALSE(DecodeQueryValue("%", "x").ok());
}

}  // namespace
}  // namespace verdict
