#include "model/csv_predict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "model/hand_built_model_test.h"
#include "model/model_info.h"

namespace verdict::model {
namespace {

using ::testing::HasSubstr;

class CsvPredict : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = Forest::LoadXGBoostJson(testing::kHandBuiltModel);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    forest_ = *loaded;
  }
  Status Run(const std::string& csv, bool explain, std::string* output) const {
    std::istringstream in(csv);
    std::ostringstream out;
    Status s = PredictCsv(*forest_, in, out, {explain, "rows.csv"});
    *output = out.str();
    return s;
  }
  std::shared_ptr<const Forest> forest_;
};

TEST_F(CsvPredict, MatchesColumnsByNameAndTreatsEmptyCellsAsMissing) {
  std::string out;
  // Columns in another order, an extra id column, quoted and empty cells, CRLF endings.
  ASSERT_TRUE(
      Run("id,velocity,amount\r\ntx1,0,0.4\r\ntx2,\"2\",0.5\r\ntx3,9,\r\ntx4,,1\r\n", false, &out)
          .ok());
  EXPECT_EQ(out,
            "margin,probability\n"
            "-1,0.2689414213699951\n"
            "2,0.8807970779778823\n"
            "-1,0.2689414213699951\n"
            "2,0.8807970779778823\n");
}

TEST_F(CsvPredict, ExplainAddsOneColumnPerFeatureAndBias) {
  std::string out;
  ASSERT_TRUE(Run("amount,velocity\n1,3\n", true, &out).ok());
  std::istringstream lines(out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(header, "margin,probability,amount,velocity,bias");
  std::vector<double> values;
  std::stringstream cells(row);
  for (std::string cell; std::getline(cells, cell, ',');) values.push_back(std::stod(cell));
  ASSERT_EQ(values.size(), 5u);
  EXPECT_EQ(values[0], 2.0);
  EXPECT_NEAR(values[2] + values[3] + values[4], values[0], 1e-12);
  EXPECT_NEAR(values[4], 0.45, 1e-12);
}

TEST_F(CsvPredict, ScoresMoreRowsThanOneBatch) {
  std::string csv = "amount,velocity\n";
  for (int i = 0; i < 2500; ++i) csv += (i % 2 ? "0.1,1\n" : "0.9,5\n");
  std::string out;
  ASSERT_TRUE(Run(csv, false, &out).ok());
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2501);
}

TEST_F(CsvPredict, ReportsErrorsWithLineAndColumn) {
  std::string out;
  Status missing = Run("amount,other\n1,2\n", false, &out);
  EXPECT_THAT(missing.message(), HasSubstr("lacks model feature columns: velocity"));
  Status twice = Run("amount,velocity,amount\n1,2,3\n", false, &out);
  EXPECT_THAT(twice.message(), HasSubstr("'amount' appears twice"));
  Status bad = Run("amount,velocity\n1,2\n1,abc\n", false, &out);
  EXPECT_THAT(bad.message(),
              HasSubstr("rows.csv line 3, column 'velocity': 'abc' is not a number"));
  Status cells = Run("amount,velocity\n1,2,3\n", false, &out);
  EXPECT_THAT(cells.message(), HasSubstr("line 2: has 3 cells, the header has 2"));
  Status quote = Run("amount,velocity\n\"1,2\n", false, &out);
  EXPECT_THAT(quote.message(), HasSubstr("unterminated quote"));
  Status empty = Run("", false, &out);
  EXPECT_THAT(empty.message(), HasSubstr("empty input"));
}

TEST_F(CsvPredict, DescribesTheModel) {
  const std::string text = DescribeText(*forest_);
  EXPECT_THAT(text, HasSubstr("trees: 1\n"));
  EXPECT_THAT(text, HasSubstr("max_depth: 2\n"));
  EXPECT_THAT(text, HasSubstr("features: 2\n"));
  EXPECT_THAT(text, HasSubstr("objective: binary:logistic\n"));
  EXPECT_THAT(text, HasSubstr("feature_names: amount velocity\n"));
  EXPECT_EQ(DescribeJson(*forest_),
            "{\"trees\":1,\"max_depth\":2,\"nodes\":5,\"num_features\":2,\"features\":[\"amount\","
            "\"velocity\"],\"objective\":\"binary:logistic\",\"base_score\":0.5,\"sha256\":\"" +
                forest_->sha256() + "\"}\n");
  EXPECT_EQ(forest_->sha256().size(), 64u);
}

}  // namespace
}  // namespace verdict::model
