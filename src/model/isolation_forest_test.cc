#include "model/isolation_forest.h"

#include <gtest/gtest.h>

#include <cmath>

namespace verdict::model {
namespace {

// Two features; one tree: feature 0 < 10 goes to a leaf of 254 rows, else feature 1 < 5 to a
// leaf of 1 (isolated) or of 1.
std::shared_ptr<const IsolationForest> HandBuilt() {
  IsolationForest::Tree tree(5);
  tree[0] = {.feature = 0, .threshold = 10, .left = 1, .right = 2};
  tree[1] = {.size = 254};
  tree[2] = {.feature = 1, .threshold = 5, .left = 3, .right = 4};
  tree[3] = {.size = 1};
  tree[4] = {.size = 1};
  return std::make_shared<const IsolationForest>(2, 256, std::vector<IsolationForest::Tree>{tree});
}

TEST(IsolationForestTest, AveragePathLength) {
  EXPECT_EQ(IsolationForest::AveragePathLength(1), 0);
  EXPECT_EQ(IsolationForest::AveragePathLength(2), 1);
  // 2 (ln 255 + γ) − 2 · 255 / 256.
  EXPECT_NEAR(IsolationForest::AveragePathLength(256), 10.2448, 1e-3);
}

TEST(IsolationForestTest, IsolatedRowScoresHigherAndIsExplainedByItsPath) {
  auto forest = HandBuilt();
  const float typical[2] = {1, 1};
  const float isolated[2] = {50, 1};
  const double c = IsolationForest::AveragePathLength(256);
  EXPECT_NEAR(forest->Score(typical), std::exp2(-(1 + IsolationForest::AveragePathLength(254)) / c),
              1e-12);
  EXPECT_NEAR(forest->Score(isolated), std::exp2(-2 / c), 1e-12);
  EXPECT_GT(forest->Score(isolated), 0.8);
  EXPECT_LT(forest->Score(typical), 0.5);

  double attribution[2];
  EXPECT_DOUBLE_EQ(forest->Explain(isolated, attribution), forest->Score(isolated));
  // Path of two splits, one per feature, shortened by c − 2: half each.
  EXPECT_NEAR(attribution[0], (c - 2) / 2, 1e-12);
  EXPECT_NEAR(attribution[1], (c - 2) / 2, 1e-12);
  forest->Explain(typical, attribution);
  EXPECT_EQ(attribution[0], 0);  // the path is longer than average: nothing to attribute
  EXPECT_EQ(attribution[1], 0);
}

TEST(IsolationForestTest, MissingValuesGoRight) {
  auto forest = HandBuilt();
  const float missing[2] = {NAN, NAN};
  const float right[2] = {50, 50};
  EXPECT_EQ(forest->Score(missing), forest->Score(right));
}

TEST(IsolationForestTest, SerializeParseRoundTrip) {
  auto forest = HandBuilt();
  const std::string text = forest->Serialize();
  EXPECT_EQ(text.rfind("verdict-iforest 1\nfeatures 2 trees 1 sample 256\ntree 5\n", 0), 0u);
  auto parsed = IsolationForest::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ((*parsed)->Serialize(), text);
  const float row[2] = {50, 7};
  EXPECT_EQ((*parsed)->Score(row), forest->Score(row));
}

TEST(IsolationForestTest, MalformedFilesAreRefusedNamingTheLine) {
  const std::string good = HandBuilt()->Serialize();
  struct Case {
    std::string text;
    std::string line;
  };
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const Case cases[] = {
      {"", "line 1"},
      {replace("verdict-iforest 1", "verdict-iforest 2"), "line 1"},
      {replace("features 2", "features x"), "line 2"},
      {replace("trees 1", "trees 0"), "line 2"},
      {replace("tree 5", "tree five"), "line 3"},
      {replace("split 0 10 1 2", "split 2 10 1 2"), "line 4"},   // feature out of range
      {replace("split 0 10 1 2", "split 0 nan 1 2"), "line 4"},  // threshold not finite
      {replace("split 1 5 3 4", "split 1 5 1 4"), "line 6"},     // child before its parent
      {replace("split 1 5 3 4", "split 1 5 3 9"), "line 6"},     // child beyond the tree
      {replace("leaf 254", "leaf -1"), "line 5"},
      {replace("leaf 254", "twig 254"), "line 5"},
      {good.substr(0, good.size() - 7), "line 8"},  // ends inside the tree
      {good + "tree 1\n", "line 9"},                // more than declared
  };
  for (const Case& c : cases) {
    auto parsed = IsolationForest::Parse(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().field(), c.line) << c.text << parsed.status().message();
  }
}

}  // namespace
}  // namespace verdict::model
