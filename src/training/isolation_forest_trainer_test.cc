#include "training/isolation_forest_trainer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace verdict::training {
namespace {

// 2,000 rows on a 3-feature grid near the origin (third feature missing in every tenth row),
// then 5 rows far away.
struct Data {
  std::vector<float> x;
  std::vector<size_t> rows;
  Data() {
    for (int i = 0; i < 2000; ++i) {
      x.push_back(static_cast<float>(i % 10));
      x.push_back(static_cast<float>((i / 10) % 10));
      x.push_back(i % 10 == 3 ? NAN : static_cast<float>((i * 7) % 5));
    }
    for (int i = 0; i < 5; ++i) {
      x.insert(x.end(), {100.0f + i, 200.0f, 1.0f});
    }
    rows.resize(x.size() / 3);
    std::iota(rows.begin(), rows.end(), 0);
  }
};

TEST(IsolationForestTrainerTest, DeterministicForASeed) {
  Data d;
  const IsolationForestParams params{
      .trees = 20, .sample_size = 64, .seed = 7, .excluded_features = {}};
  const std::string a = TrainIsolationForest(d.x, 3, d.rows, params)->Serialize();
  EXPECT_EQ(TrainIsolationForest(d.x, 3, d.rows, params)->Serialize(), a);
  IsolationForestParams other = params;
  other.seed = 8;
  EXPECT_NE(TrainIsolationForest(d.x, 3, d.rows, other)->Serialize(), a);
}

TEST(IsolationForestTrainerTest, FarRowsScoreAboveEveryGridRowAndTreesStayShallow) {
  Data d;
  auto forest = TrainIsolationForest(
      d.x, 3, d.rows, {.trees = 100, .sample_size = 256, .seed = 1, .excluded_features = {}});
  ASSERT_EQ(forest->num_trees(), 100u);
  double max_inlier = 0;
  for (size_t i = 0; i < 2000; ++i) max_inlier = std::max(max_inlier, forest->Score(&d.x[i * 3]));
  for (size_t i = 2000; i < 2005; ++i) {
    EXPECT_GT(forest->Score(&d.x[i * 3]), max_inlier) << i;
    EXPECT_GT(forest->Score(&d.x[i * 3]), 0.6) << i;
  }
  // Depth limit ceil(log2 256) = 8: no tree has more than 2^9 − 1 nodes.
  for (const auto& tree : forest->trees()) EXPECT_LT(tree.size(), 512u);
  // What the trainer built survives the file format unchanged.
  auto parsed = model::IsolationForest::Parse(forest->Serialize());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ((*parsed)->Score(&d.x[2000 * 3]), forest->Score(&d.x[2000 * 3]));
}

TEST(IsolationForestTrainerTest, ExcludedFeaturesAreNeverSplitOn) {
  Data d;
  auto forest = TrainIsolationForest(
      d.x, 3, d.rows, {.trees = 10, .sample_size = 64, .seed = 1, .excluded_features = {0, 2}});
  for (const auto& tree : forest->trees()) {
    for (const auto& node : tree) EXPECT_TRUE(node.feature == -1 || node.feature == 1);
  }
}

TEST(IsolationForestTrainerTest, FewRowsAreAllTaken) {
  Data d;
  const std::vector<size_t> three = {0, 1, 2000};
  auto forest = TrainIsolationForest(
      d.x, 3, three, {.trees = 5, .sample_size = 256, .seed = 1, .excluded_features = {}});
  EXPECT_EQ(forest->sample_size(), 3u);
  for (const auto& tree : forest->trees()) {
    uint32_t rows = 0;
    for (const auto& node : tree) rows += node.feature < 0 ? node.size : 0;
    EXPECT_EQ(rows, 3u);
  }
}

}  // namespace
}  // namespace verdict::training
