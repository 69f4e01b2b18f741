#include "model/forest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "common/sha256.h"
#include "model/xgboost_trainer_test.h"

namespace verdict::model {
namespace {

using testing::Booster;
using testing::Dataset;
using testing::MakeDataset;
using testing::PredictType;

struct Case {
  std::string name;
  std::map<std::string, std::string> params;
  bool binary;
  int rounds;
};

std::vector<Case> Cases() {
  return {
      {"binary_logistic_hist",
       {{"objective", "binary:logistic"}, {"max_depth", "6"}, {"tree_method", "hist"}},
       true,
       60},
      {"binary_logistic_exact_base",
       {{"objective", "binary:logistic"},
        {"max_depth", "5"},
        {"tree_method", "exact"},
        {"base_score", "0.3"}},
       true,
       40},
      {"binary_logitraw",
       {{"objective", "binary:logitraw"}, {"max_depth", "6"}, {"base_score", "0.2"}},
       true,
       40},
      {"reg_logistic",
       {{"objective", "reg:logistic"}, {"max_depth", "4"}, {"tree_method", "approx"}},
       true,
       40},
      {"reg_squarederror_deep",
       {{"objective", "reg:squarederror"},
        {"max_depth", "8"},
        {"base_score", "2.5"},
        {"subsample", "0.8"}},
       false,
       40},
      {"reg_squarederror_lossguide",
       {{"objective", "reg:squarederror"},
        {"tree_method", "hist"},
        {"grow_policy", "lossguide"},
        {"max_leaves", "24"},
        {"max_depth", "0"}},
       false,
       30},
  };
}

class ForestVsXGBoost : public ::testing::TestWithParam<Case> {};

TEST_P(ForestVsXGBoost, MarginsLeavesAndPredictionsMatch) {
  const Case& c = GetParam();
  std::map<std::string, std::string> params = c.params;
  params["nthread"] = "1";
  params["seed"] = "7";
  const Dataset train = MakeDataset(2000, 12, 0.15, 11, c.binary);
  Booster booster(train, params, c.rounds);
  const std::string json = booster.SaveJson();
  auto loaded = Forest::LoadXGBoostJson(json);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Forest& forest = **loaded;
  EXPECT_EQ(forest.num_trees(), static_cast<size_t>(c.rounds));
  EXPECT_EQ(forest.num_features(), 12u);
  EXPECT_EQ(forest.sha256(), Sha256Hex(json));

  // Fresh rows, with more missing values than in training. (XGBoost refuses infinities in a
  // DMatrix, so those are tested on hand-built trees in tree_semantics_test.cc.)
  const Dataset test = MakeDataset(4000, 12, 0.25, 99, c.binary);
  const std::vector<float> margins = booster.Predict(test, PredictType::kMargin);
  const std::vector<float> values = booster.Predict(test, PredictType::kValue);
  const std::vector<float> leaves = booster.Predict(test, PredictType::kLeaf);
  ASSERT_EQ(margins.size(), test.rows);
  ASSERT_EQ(leaves.size(), test.rows * forest.num_trees());

  std::vector<float> batch(test.rows);
  forest.PredictMarginBatch(test.x.data(), test.rows, batch.data());
  double max_diff = 0;
  size_t exact = 0;
  std::vector<int32_t> ours(forest.num_trees());
  for (size_t r = 0; r < test.rows; ++r) {
    const float* row = &test.x[r * 12];
    const float margin = forest.PredictMargin(row);
    max_diff = std::max(max_diff, static_cast<double>(std::abs(margin - margins[r])));
    exact += margin == margins[r];
    // The batch path sums in the same order, so it agrees bit for bit.
    ASSERT_EQ(batch[r], margin) << "row " << r;
    EXPECT_NEAR(forest.Prediction(margin), values[r], 1e-6) << "row " << r;
    forest.PredictLeaves(row, ours.data());
    for (size_t t = 0; t < forest.num_trees(); ++t) {
      ASSERT_EQ(ours[t], static_cast<int32_t>(leaves[r * forest.num_trees() + t]))
          << "row " << r << " tree " << t;
    }
  }
  EXPECT_LE(max_diff, 1e-5);
  // Same leaves and the same float summation order: equal, not merely close.
  EXPECT_EQ(exact, test.rows);
}

INSTANTIATE_TEST_SUITE_P(Objectives, ForestVsXGBoost, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

TEST(Forest, KeepsFeatureNamesAndProbabilities) {
  const Dataset train = MakeDataset(500, 4, 0.1, 3, true);
  Booster booster(train, {{"objective", "binary:logistic"}, {"max_depth", "3"}, {"nthread", "1"}},
                  5, {"amount", "velocity", "age_days", "country_risk"});
  auto forest = Forest::LoadXGBoostJson(booster.SaveJson());
  ASSERT_TRUE(forest.ok()) << forest.status().ToString();
  EXPECT_EQ((*forest)->feature_names(),
            (std::vector<std::string>{"amount", "velocity", "age_days", "country_risk"}));
  EXPECT_EQ((*forest)->objective(), Objective::kBinaryLogistic);
  EXPECT_DOUBLE_EQ((*forest)->Probability(0.0f), 0.5);
  EXPECT_NEAR((*forest)->Probability(2.0f), 1 / (1 + std::exp(-2.0)), 1e-12);
}

TEST(Forest, SharedAcrossThreadsGivesTheSameAnswers) {
  const Dataset train = MakeDataset(1000, 8, 0.1, 5, true);
  Booster booster(train, {{"objective", "binary:logistic"}, {"max_depth", "5"}, {"nthread", "1"}},
                  20);
  auto forest = Forest::LoadXGBoostJson(booster.SaveJson());
  ASSERT_TRUE(forest.ok());
  std::shared_ptr<const Forest> shared = *forest;
  std::vector<float> expected(train.rows);
  shared->PredictMarginBatch(train.x.data(), train.rows, expected.data());
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t r = 0; r < train.rows; ++r) {
        if (shared->PredictMargin(&train.x[r * 8]) != expected[r]) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(Forest, LoadFileReportsMissingFile) {
  auto forest = Forest::LoadFile("/nonexistent/model.json");
  ASSERT_FALSE(forest.ok());
  EXPECT_EQ(forest.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace verdict::model
