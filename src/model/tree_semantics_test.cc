// Split semantics on a hand-built tree: `x < threshold` in float goes left (equality goes
// right), NaN follows the default direction, infinities are ordinary values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "model/forest.h"
#include "model/hand_built_model_test.h"

namespace verdict::model {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

class HandBuiltTree : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = Forest::LoadXGBoostJson(testing::kHandBuiltModel);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    forest_ = *loaded;
  }
  float Margin(float amount, float velocity) const {
    const float row[2] = {amount, velocity};
    return forest_->PredictMargin(row);
  }
  std::shared_ptr<const Forest> forest_;
};

TEST_F(HandBuiltTree, FollowsXGBoostSplitSemantics) {
  EXPECT_EQ(Margin(0.4f, 0.0f), -1.0f);
  EXPECT_EQ(Margin(std::nextafter(0.5f, 0.0f), 0.0f), -1.0f);
  EXPECT_EQ(Margin(0.5f, 0.0f), 0.25f);  // equal to the threshold: right
  EXPECT_EQ(Margin(0.5f, 2.0f), 2.0f);
  EXPECT_EQ(Margin(kNaN, 9.0f), -1.0f);  // missing amount: default left
  EXPECT_EQ(Margin(1.0f, kNaN), 2.0f);   // missing velocity: default right
  EXPECT_EQ(Margin(kInf, -kInf), 0.25f);
  EXPECT_EQ(Margin(-kInf, kInf), -1.0f);
  EXPECT_EQ(forest_->num_trees(), 1u);
  EXPECT_EQ(forest_->max_depth(), 2);
  EXPECT_DOUBLE_EQ(forest_->Probability(Margin(0.4f, 0.0f)), 1 / (1 + std::exp(1.0)));
}

TEST_F(HandBuiltTree, BatchAgreesWithSingleRows) {
  const float rows[] = {0.4f, 0.0f, 0.5f, 2.0f, kNaN, kNaN, 1.0f, kNaN, kInf, -kInf, -kInf, kInf,
                        0.5f, 1.9f, 3.0f, 1.0f, 0.0f, 0.0f, 7.0f, 8.0f, kNaN, 1.0f,  0.6f,  2.1f};
  const size_t n = sizeof(rows) / sizeof(rows[0]) / 2;
  std::vector<float> out(n);
  forest_->PredictMarginBatch(rows, n, out.data());
  for (size_t r = 0; r < n; ++r) EXPECT_EQ(out[r], forest_->PredictMargin(&rows[2 * r])) << r;
}

TEST_F(HandBuiltTree, ShapValuesAreTheExactShapleyValues) {
  // Expected value 0.4 * -1 + 0.6 * (2/6 * 0.25 + 4/6 * 2) = 0.45. For amount = 1,
  // velocity = 3 the tree gives 2: with amount known alone, E = 2/6 * 0.25 + 4/6 * 2 = 17/12;
  // with velocity known alone, E = 0.4 * -1 + 0.6 * 2 = 0.8. Shapley:
  // amount = ((17/12 - 0.45) + (2 - 0.8)) / 2, velocity = ((0.8 - 0.45) + (2 - 17/12)) / 2.
  const float row[2] = {1.0f, 3.0f};
  double phi[3];
  forest_->ExplainTreeShap(row, phi);
  EXPECT_NEAR(phi[0], ((17.0 / 12 - 0.45) + (2 - 0.8)) / 2, 1e-12);
  EXPECT_NEAR(phi[1], ((0.8 - 0.45) + (2 - 17.0 / 12)) / 2, 1e-12);
  EXPECT_NEAR(phi[2], 0.45, 1e-12);
  EXPECT_NEAR(phi[0] + phi[1] + phi[2], 2.0, 1e-12);
  // Saabas credits each split on the path with the change in expectation.
  double saabas[3];
  forest_->ExplainSaabas(row, saabas);
  EXPECT_NEAR(saabas[0], 17.0 / 12 - 0.45, 1e-12);
  EXPECT_NEAR(saabas[1], 2 - 17.0 / 12, 1e-12);
  EXPECT_NEAR(saabas[2], 0.45, 1e-12);
}

}  // namespace
}  // namespace verdict::model
