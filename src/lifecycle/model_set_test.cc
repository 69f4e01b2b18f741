#include "lifecycle/model_set.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "lifecycle/lifecycle_test_util.h"

namespace verdict::lifecycle {
namespace {

std::shared_ptr<const ScoringModel> Load(const std::string& text, const std::string& version) {
  auto forest = model::Forest::LoadXGBoostJson(text);
  EXPECT_TRUE(forest.ok());
  auto model = ScoringModel::Create("m", version, *forest, testing::kSchema, "model");
  EXPECT_TRUE(model.ok());
  return *model;
}

TEST(ModelSetTest, WithoutACandidateThePrimaryDecidesAlone) {
  ModelSet empty;
  EXPECT_EQ(empty.Assign("ACC-1").decider, nullptr);
  ModelSet set;
  set.primary = Load(testing::ModelA(), "1");
  auto a = set.Assign("ACC-1");
  EXPECT_EQ(a.decider, set.primary.get());
  EXPECT_EQ(a.observer, nullptr);
}

TEST(ModelSetTest, ShadowObservesEveryTransaction) {
  ModelSet set;
  set.primary = Load(testing::ModelA(), "1");
  set.candidate = Load(testing::ModelB(), "2");
  set.mode = CandidateMode::kShadow;
  for (int i = 0; i < 100; ++i) {
    auto a = set.Assign("ACC-" + std::to_string(i));
    EXPECT_EQ(a.decider, set.primary.get());
    EXPECT_EQ(a.observer, set.candidate.get());
    EXPECT_FALSE(a.candidate_decides);
  }
}

TEST(ModelSetTest, CanaryTakesAStableShareOfAccountsThatOnlyGrows) {
  ModelSet set;
  set.primary = Load(testing::ModelA(), "1");
  set.candidate = Load(testing::ModelB(), "2");
  set.mode = CandidateMode::kCanary;
  const int n = 20000;
  int previous = 0;
  std::vector<bool> was_canary(n, false);
  for (double weight : {0.05, 0.15, 0.5, 1.0}) {
    set.traffic_weight = weight;
    int canary = 0;
    for (int i = 0; i < n; ++i) {
      const std::string account = "ACC-" + std::to_string(i);
      auto a = set.Assign(account);
      EXPECT_EQ(a.candidate_decides, set.Assign(account).candidate_decides);  // deterministic
      EXPECT_EQ(a.candidate_decides, CanaryBucket(account) < weight * 10000);
      if (was_canary[i]) {
        EXPECT_TRUE(a.candidate_decides) << "weight " << weight;
      }
      was_canary[i] = a.candidate_decides;
      if (a.candidate_decides) {
        EXPECT_EQ(a.decider, set.candidate.get());
        EXPECT_EQ(a.observer, set.primary.get());
        ++canary;
      } else {
        EXPECT_EQ(a.decider, set.primary.get());
        EXPECT_EQ(a.observer, set.candidate.get());
      }
    }
    EXPECT_NEAR(static_cast<double>(canary) / n, weight, 0.01) << weight;
    EXPECT_GE(canary, previous);
    previous = canary;
  }
}

// An account is in the canary when its bucket is below weight x 10,000, so a weight between
// two buckets takes the partial one too, and the least weight allowed takes one bucket.
TEST(ModelSetTest, SmallCanaryWeightsTakeEveryBucketBelowTheirShare) {
  ModelSet set;
  set.primary = Load(testing::ModelA(), "1");
  set.candidate = Load(testing::ModelB(), "2");
  set.mode = CandidateMode::kCanary;
  std::string in_bucket[3];
  for (int i = 0;
       i < 1'000'000 && (in_bucket[0].empty() || in_bucket[1].empty() || in_bucket[2].empty());
       ++i) {
    const std::string account = "ACC-" + std::to_string(i);
    const uint32_t bucket = CanaryBucket(account);
    if (bucket < 3 && in_bucket[bucket].empty()) in_bucket[bucket] = account;
  }
  ASSERT_FALSE(in_bucket[2].empty());
  set.traffic_weight = kMinTrafficWeight;
  EXPECT_TRUE(set.Assign(in_bucket[0]).candidate_decides);
  EXPECT_FALSE(set.Assign(in_bucket[1]).candidate_decides);
  set.traffic_weight = 0.00014;
  EXPECT_TRUE(set.Assign(in_bucket[1]).candidate_decides);
  EXPECT_FALSE(set.Assign(in_bucket[2]).candidate_decides);
}

TEST(ModelSetTest, CanaryBucketIsStableAcrossBuilds) {
  // Persisted rollouts rely on it: these values must never change.
  EXPECT_EQ(CanaryBucket("ACC-1"), CanaryBucket("ACC-1"));
  EXPECT_LT(CanaryBucket("ACC-1"), 10000u);
  EXPECT_NE(CanaryBucket("ACC-1"), CanaryBucket("ACC-2"));
}

TEST(ScoringModelTest, RefusesAModelWithAFeatureTheSchemaLacks) {
  auto forest = model::Forest::LoadXGBoostJson(testing::ModelA());
  ASSERT_TRUE(forest.ok());
  std::array<std::string_view, 1> schema = {"amount"};
  auto model = ScoringModel::Create("m", "1", *forest, schema, "model.path");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().field(), "model.path");
  EXPECT_NE(model.status().message().find("'velocity'"), std::string::npos);
}

TEST(ScoringModelTest, MapsSchemaFeaturesByName) {
  auto model = Load(testing::ModelA(), "1");
  // Schema order: amount, velocity, other. amount >= 0.5 and velocity >= 2: leaf 2.
  std::array<double, 3> values = {1, 3, 99};
  FeatureView view{values, testing::kSchema, "test"};
  EXPECT_NEAR(model->Score(view), 1 / (1 + std::exp(-2.0)), 1e-6);
  values = {0, 0, 0};  // amount < 0.5: leaf -1
  EXPECT_NEAR(model->Score(view), 1 / (1 + std::exp(1.0)), 1e-6);
  EXPECT_EQ(model->ref().version, "1");
  EXPECT_EQ(model->ref().sha256.size(), 64u);
}

}  // namespace
}  // namespace verdict::lifecycle
