#include "monitor/reference_distribution.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "monitor/monitor_test_util.h"

namespace verdict::monitor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

using testing_util::kNaN;

TEST(VariableReferenceTest, ContinuousValuesGetQuantileEdges) {
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i) values.push_back(i);
  VariableReference v = BuildVariableReference("x", values, 10);
  ASSERT_EQ(v.edges.size(), 11u);
  EXPECT_EQ(v.edges.front(), 0);
  EXPECT_EQ(v.edges.back(), 999);
  EXPECT_EQ(v.edges[5], 500);  // round(0.5 * 999) = 500
  uint64_t total = 0;
  for (uint64_t c : v.counts) {
    EXPECT_GE(c, 99u);
    EXPECT_LE(c, 101u);
    total += c;
  }
  EXPECT_EQ(total, 1000u);
  EXPECT_EQ(v.sample.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(v.sample.begin(), v.sample.end()));
}

TEST(VariableReferenceTest, FewDistinctValuesGetOneBinEach) {
  std::vector<double> values = {0, 0, 0, 0, 1, 1, 2, kNaN, kNaN};
  VariableReference v = BuildVariableReference("count", values);
  EXPECT_THAT(v.edges, ElementsAre(0, 0.5, 1.5, 2));
  EXPECT_THAT(v.counts, ElementsAre(4, 2, 1));
  EXPECT_EQ(v.missing, 2u);
  EXPECT_THAT(v.sample, ElementsAre(0, 0, 0, 0, 1, 1, 2));
}

TEST(VariableReferenceTest, ConstantAndAllMissing) {
  VariableReference constant = BuildVariableReference("c", {3, 3, 3});
  EXPECT_THAT(constant.edges, ElementsAre(3, 3));
  EXPECT_THAT(constant.counts, ElementsAre(3));
  VariableReference empty = BuildVariableReference("m", {kNaN, kNaN});
  EXPECT_EQ(empty.missing, 2u);
  EXPECT_THAT(empty.counts, ElementsAre(0));
  EXPECT_TRUE(empty.sample.empty());
}

TEST(VariableReferenceTest, OutOfRangeValuesGoToTheOuterBins) {
  VariableReference v;
  v.edges = {0, 1, 2, 3};
  v.counts = {0, 0, 0};
  EXPECT_EQ(v.BinOf(-5), 0u);
  EXPECT_EQ(v.BinOf(0), 0u);
  EXPECT_EQ(v.BinOf(0.999), 0u);
  EXPECT_EQ(v.BinOf(1), 1u);
  EXPECT_EQ(v.BinOf(2.5), 2u);
  EXPECT_EQ(v.BinOf(3), 2u);
  EXPECT_EQ(v.BinOf(100), 2u);
}

TEST(VariableReferenceTest, LargeInputsAreSampledDeterministically) {
  std::vector<double> values;
  for (int i = 0; i < 100000; ++i) values.push_back((i * 7919) % 100000);
  VariableReference a = BuildVariableReference("x", values);
  VariableReference b = BuildVariableReference("x", values);
  EXPECT_EQ(a.sample.size(), kMaxReferenceSample);
  EXPECT_EQ(a.sample, b.sample);
  EXPECT_EQ(a.sample.front(), 0);
  EXPECT_EQ(a.sample.back(), 99999);
  EXPECT_LE(a.edges.size(), kMaxReferenceBins + 1);
}

ReferenceDistribution SmallReference() {
  ReferenceBuilder builder({"amount", "count"});
  for (int i = 0; i < 50; ++i) {
    const double row[] = {i * 1.5, static_cast<double>(i % 3)};
    EXPECT_TRUE(builder.AddRow(row, i / 50.0).ok());
  }
  auto built = builder.Build();
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  return std::move(built).value();
}

TEST(ReferenceBuilderTest, RowWiseAndColumnWiseAgree) {
  ReferenceDistribution rows = SmallReference();
  ReferenceBuilder builder({"amount", "count"});
  std::vector<double> amount, count, score;
  for (int i = 0; i < 50; ++i) {
    amount.push_back(i * 1.5);
    count.push_back(i % 3);
    score.push_back(i / 50.0);
  }
  ASSERT_TRUE(builder.AddFeatureColumn(0, amount).ok());
  ASSERT_TRUE(builder.AddFeatureColumn(1, count).ok());
  ASSERT_TRUE(builder.AddScoreColumn(score).ok());
  auto columns = builder.Build();
  ASSERT_TRUE(columns.ok());
  EXPECT_EQ(ReferenceToJson(rows), ReferenceToJson(*columns));
  EXPECT_EQ(rows.rows, 50u);
  EXPECT_EQ(rows.score.name, "score");
  ASSERT_NE(rows.Find("count"), nullptr);
  EXPECT_EQ(rows.Find("nope"), nullptr);
}

TEST(ReferenceBuilderTest, RefusesMismatchedColumnsAndNames) {
  ReferenceBuilder builder({"a", "b"});
  const double one[] = {1.0};
  ASSERT_TRUE(builder.AddFeatureColumn(0, one).ok());
  ASSERT_TRUE(builder.AddScoreColumn(one).ok());
  auto built = builder.Build();
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().field(), "features[1]");
  EXPECT_FALSE(builder.AddFeatureColumn(2, one).ok());
  const double row[] = {1.0};
  EXPECT_FALSE(builder.AddRow(row, 0.5).ok());

  ReferenceBuilder duplicate({"a", "a"});
  auto dup = duplicate.Build();
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.status().message(), HasSubstr("duplicate"));
}

TEST(ReferenceJsonTest, RoundTrips) {
  ReferenceDistribution reference = SmallReference();
  const std::string json = ReferenceToJson(reference);
  auto parsed = ParseReferenceJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(ReferenceToJson(*parsed), json);
  EXPECT_THAT(json, HasSubstr("\"schema\":\"reference-1\""));
}

TEST(ReferenceJsonTest, TheRowsKnownSendersRuleRoundTripsAndDefaultsToEveryRow) {
  ReferenceDistribution reference = SmallReference();
  EXPECT_THAT(ReferenceToJson(reference), Not(HasSubstr("min_account_history_days")));
  reference.min_account_history_days = 7;
  auto parsed = ParseReferenceJson(ReferenceToJson(reference));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->min_account_history_days, 7);
  std::string text = ReferenceToJson(reference);
  text.replace(text.find("\"min_account_history_days\":7"), 28, "\"min_account_history_days\":-1");
  auto negative = ParseReferenceJson(text);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().field(), "min_account_history_days");
}

TEST(ReferenceJsonTest, FileRoundTrip) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("verdict_ref_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "reference.json").string();
  ReferenceDistribution reference = SmallReference();
  ASSERT_TRUE(WriteReferenceFile(reference, path).ok());
  auto read = ReadReferenceFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(ReferenceToJson(*read), ReferenceToJson(reference));
  auto missing = ReadReferenceFile((dir / "absent.json").string());
  EXPECT_FALSE(missing.ok());
  std::filesystem::remove_all(dir);
}

std::string Doc(const std::string& feature, const std::string& rows = "3") {
  return R"({"schema":"reference-1","rows":)" + rows + R"(,"features":[)" + feature +
         R"(],"score":{"name":"score","missing":0,"edges":[0,1],"counts":[3],"sample":[0,0.5,1]}})";
}

std::string Field(const std::string& text) {
  auto parsed = ParseReferenceJson(text);
  EXPECT_FALSE(parsed.ok()) << text;
  return parsed.ok() ? "" : parsed.status().field();
}

TEST(ReferenceJsonTest, AcceptsAValidDocument) {
  auto parsed = ParseReferenceJson(
      Doc(R"({"name":"a","missing":1,"edges":[0,1,2],"counts":[1,1],"sample":[0.5,1.5]})"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->features[0].missing, 1u);
}

TEST(ReferenceJsonTest, RefusesBadInputNamingTheField) {
  const std::string ok_feature =
      R"({"name":"a","missing":1,"edges":[0,1,2],"counts":[1,1],"sample":[0.5,1.5]})";
  EXPECT_EQ(Field("not json"), "reference");
  EXPECT_EQ(Field("[]"), "reference");
  EXPECT_EQ(Field(R"({"schema":"reference-2","rows":0,"features":[],"score":{}})"), "schema");
  EXPECT_EQ(Field(R"({"schema":"reference-1","rows":0,"features":[]})"), "score");
  EXPECT_TRUE(ParseReferenceJson(Doc(ok_feature) + " ").ok());
  EXPECT_EQ(Field(Doc(ok_feature, "-1")), "rows");
  EXPECT_EQ(Field(Doc(ok_feature, "4")), "features[0]");
  EXPECT_EQ(
      Field(Doc(R"({"name":"a","missing":1,"edges":[0,2,1],"counts":[1,1],"sample":[0.5,1.5]})")),
      "features[0].edges[2]");
  EXPECT_EQ(
      Field(Doc(R"({"name":"a","missing":1,"edges":[0,1],"counts":[1,1],"sample":[0.5,1.5]})")),
      "features[0].edges");
  EXPECT_EQ(
      Field(Doc(R"({"name":"a","missing":1,"edges":[0,1,2],"counts":[1,1],"sample":[1.5,0.5]})")),
      "features[0].sample[1]");
  EXPECT_EQ(
      Field(Doc(R"({"name":"a","missing":1,"edges":[0,1,"2"],"counts":[1,1],"sample":[0.5,1.5]})")),
      "features[0].edges[2]");
  EXPECT_EQ(
      Field(Doc(R"({"name":"a","missing":1,"edges":[0,1,2],"counts":[1,-1],"sample":[0.5,1.5]})")),
      "features[0].counts[1]");
  EXPECT_EQ(Field(Doc(R"({"name":"a","missing":1,"edges":[0,1,2],"counts":[1,1]})")),
            "features[0].sample");
  EXPECT_EQ(
      Field(Doc(R"({"name":"a","missing":1,"edges":[0,1,2],"counts":[1,1],"sample":[0.5],"x":1})")),
      "features[0].x");
  EXPECT_EQ(
      Field(Doc(
          R"({"name":"a","name":"b","missing":1,"edges":[0,1,2],"counts":[1,1],"sample":[1]})")),
      "features[0].name");
  EXPECT_EQ(Field(Doc(ok_feature + "," + ok_feature)), "features[1].name");
  EXPECT_EQ(Field(Doc(R"({"name":"","missing":1,"edges":[0,1,2],"counts":[1,1],"sample":[1]})")),
            "features[0].name");
  EXPECT_EQ(
      Field(Doc(R"({"name":"a","missing":1,"edges":[0,1,2],"counts":[1,1],"sample":[1,1,1,1]})")),
      "features[0].sample");
  std::string many_edges = "[";
  for (int i = 0; i < 22; ++i) many_edges += (i ? "," : "") + std::to_string(i);
  many_edges += "]";
  EXPECT_EQ(Field(Doc(R"({"name":"a","missing":1,"edges":)" + many_edges +
                      R"(,"counts":[1,1],"sample":[1]})")),
            "features[0].edges");
  EXPECT_EQ(Field(R"({"schema":"reference-1","rows":3,"features":[],"score":)"
                  R"({"name":"s","missing":0,"edges":[0,1],"counts":[3],"sample":[0]}})"),
            "score.name");
}

}  // namespace
}  // namespace verdict::monitor
