#include "model/tree_shap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/forest.h"
#include "model/saabas.h"
#include "model/top_k.h"
#include "model/xgboost_trainer_test.h"

namespace verdict::model {
namespace {

using testing::Booster;
using testing::Dataset;
using testing::MakeDataset;
using testing::PredictType;

std::shared_ptr<const Forest> Load(const Booster& booster) {
  auto forest = Forest::LoadXGBoostJson(booster.SaveJson());
  EXPECT_TRUE(forest.ok()) << forest.status().ToString();
  return forest.ok() ? *forest : nullptr;
}

struct ShapCase {
  std::string name;
  std::map<std::string, std::string> params;
  bool binary;
  int rounds;
};

class TreeShapVsXGBoost : public ::testing::TestWithParam<ShapCase> {};

// XGBoost's pred_contribs is the reference implementation of path-dependent TreeSHAP.
TEST_P(TreeShapVsXGBoost, ContributionsMatchPredContribs) {
  const ShapCase& c = GetParam();
  std::map<std::string, std::string> params = c.params;
  params["nthread"] = "1";
  params["seed"] = "3";
  const size_t cols = 10;
  const Dataset train = MakeDataset(1500, cols, 0.15, 21, c.binary);
  Booster booster(train, params, c.rounds);
  auto forest = Load(booster);
  ASSERT_NE(forest, nullptr);
  const Dataset test = MakeDataset(2000, cols, 0.25, 77, c.binary);
  const std::vector<float> expected = booster.Predict(test, PredictType::kContribs);
  const std::vector<float> expected_approx = booster.Predict(test, PredictType::kApproxContribs);
  const std::vector<float> margins = booster.Predict(test, PredictType::kMargin);
  ASSERT_EQ(expected.size(), test.rows * (cols + 1));
  std::vector<double> phi(cols + 1);
  std::vector<double> saabas(cols + 1);
  double max_diff = 0;
  double max_approx_diff = 0;
  double max_sum_diff = 0;
  for (size_t r = 0; r < test.rows; ++r) {
    const float* row = &test.x[r * cols];
    forest->ExplainTreeShap(row, phi.data());
    forest->ExplainSaabas(row, saabas.data());
    double sum = 0;
    double saabas_sum = 0;
    for (size_t i = 0; i <= cols; ++i) {
      max_diff = std::max(max_diff, std::abs(phi[i] - expected[r * (cols + 1) + i]));
      max_approx_diff =
          std::max(max_approx_diff, std::abs(saabas[i] - expected_approx[r * (cols + 1) + i]));
      sum += phi[i];
      saabas_sum += saabas[i];
    }
    max_sum_diff = std::max(max_sum_diff, std::abs(sum - margins[r]));
    max_sum_diff = std::max(max_sum_diff, std::abs(saabas_sum - margins[r]));
  }
  EXPECT_LE(max_diff, 1e-4);
  EXPECT_LE(max_approx_diff, 1e-4);
  EXPECT_LE(max_sum_diff, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Objectives, TreeShapVsXGBoost,
    ::testing::Values(
        ShapCase{"binary_logistic_depth6",
                 {{"objective", "binary:logistic"}, {"max_depth", "6"}, {"base_score", "0.4"}},
                 true,
                 30},
        ShapCase{
            "reg_squarederror_depth8",
            {{"objective", "reg:squarederror"}, {"max_depth", "8"}, {"colsample_bytree", "0.7"}},
            false,
            20},
        ShapCase{"binary_logitraw_lossguide",
                 {{"objective", "binary:logitraw"},
                  {"tree_method", "hist"},
                  {"grow_policy", "lossguide"},
                  {"max_leaves", "40"},
                  {"max_depth", "0"}},
                 true,
                 15}),
    [](const auto& info) { return info.param.name; });

// Path-dependent expectation of one tree given the features in `known` (a bit set).
double ConditionalExpectation(const Forest& forest, uint32_t index, const uint32_t* keys,
                              uint32_t known) {
  const Forest::Node& node = forest.nodes()[index];
  if (forest.IsLeaf(index)) return forest.leaf_values()[index];
  const uint32_t n = static_cast<uint32_t>(forest.num_features());
  const uint32_t feature = node.slot >= n ? node.slot - n : node.slot;
  if (known & (1u << feature)) {
    return ConditionalExpectation(forest, Forest::Next(node, keys), keys, known);
  }
  const double* fractions = forest.cover_fractions().data();
  const uint32_t left = node.right - 1;
  return fractions[left] * ConditionalExpectation(forest, left, keys, known) +
         fractions[node.right] * ConditionalExpectation(forest, node.right, keys, known);
}

// Shapley values by enumerating every coalition: independent of the algorithm under test.
std::vector<double> BruteForceShapley(const Forest& forest, const float* row) {
  const size_t m = forest.num_features();
  std::vector<uint32_t> keys(2 * m);
  forest.FillKeys(row, keys.data());
  std::vector<double> factorial(m + 1, 1);
  for (size_t i = 1; i <= m; ++i) factorial[i] = factorial[i - 1] * i;
  std::vector<double> value(size_t{1} << m, 0);
  for (uint32_t s = 0; s < value.size(); ++s) {
    for (uint32_t root : forest.roots()) {
      value[s] += ConditionalExpectation(forest, root, keys.data(), s);
    }
  }
  std::vector<double> phi(m + 1, 0);
  for (size_t i = 0; i < m; ++i) {
    for (uint32_t s = 0; s < value.size(); ++s) {
      if (s & (1u << i)) continue;
      const int size = __builtin_popcount(s);
      const double weight = factorial[size] * factorial[m - size - 1] / factorial[m];
      phi[i] += weight * (value[s | (1u << i)] - value[s]);
    }
  }
  phi[m] = forest.base_margin() + value[0];
  return phi;
}

TEST(TreeShap, EqualsBruteForceShapleyValues) {
  const size_t cols = 6;
  const Dataset train = MakeDataset(800, cols, 0.2, 5, false);
  // Deep trees on few features repeat features along paths, which the merge step handles.
  Booster booster(train, {{"objective", "reg:squarederror"}, {"max_depth", "7"}, {"nthread", "1"}},
                  6);
  auto forest = Load(booster);
  ASSERT_NE(forest, nullptr);
  const Dataset test = MakeDataset(60, cols, 0.3, 6, false);
  std::vector<double> phi(cols + 1);
  for (size_t r = 0; r < test.rows; ++r) {
    const float* row = &test.x[r * cols];
    forest->ExplainTreeShap(row, phi.data());
    const std::vector<double> expected = BruteForceShapley(*forest, row);
    for (size_t i = 0; i <= cols; ++i) {
      EXPECT_NEAR(phi[i], expected[i], 1e-9) << "row " << r << " feature " << i;
    }
  }
}

TEST(TopK, OrdersByAbsoluteContributionWithNamesAndValues) {
  const Dataset train = MakeDataset(500, 4, 0.0, 8, true);
  Booster booster(train, {{"objective", "binary:logistic"}, {"max_depth", "3"}, {"nthread", "1"}},
                  10, {"amount", "velocity", "age_days", "country_risk"});
  auto forest = Load(booster);
  ASSERT_NE(forest, nullptr);
  const float row[4] = {1.0f, -2.0f, 0.5f, NAN};
  const double contributions[5] = {0.2, -0.7, 0.0, 0.3, 9.0};
  const std::vector<FeatureContribution> top = TopK(*forest, row, contributions, 4);
  // The zero contribution and the bias are never selected.
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].name, "velocity");
  EXPECT_EQ(top[0].value, -2.0f);
  EXPECT_EQ(top[0].contribution, -0.7);
  EXPECT_EQ(top[1].name, "country_risk");
  EXPECT_TRUE(std::isnan(top[1].value));
  EXPECT_EQ(top[2].name, "amount");
  EXPECT_EQ(TopK(*forest, row, contributions, 1).size(), 1u);
}

}  // namespace
}  // namespace verdict::model
