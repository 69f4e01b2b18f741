// ModelSpec: a tree ensemble as XGBoost describes it (parallel node arrays per tree), after
// the loader has checked it; the Forest compiles it. Plain value type; not synchronized.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/objective.h"

namespace verdict::model {

// One tree in XGBoost's node numbering: node 0 is the root, a leaf has left[i] == -1.
struct TreeSpec {
  std::vector<int32_t> left;
  std::vector<int32_t> right;
  std::vector<int32_t> split_index;
  std::vector<float> split_condition;  // threshold of a split; the value of a leaf
  std::vector<uint8_t> default_left;   // where a missing (NaN) value goes
  std::vector<float> cover;            // sum_hessian: the training weight reaching the node
};

struct ModelSpec {
  Objective objective = Objective::kRegSquaredError;
  float base_score = 0.5f;  // as stored in the file (a probability for logistic objectives)
  size_t num_features = 0;
  std::vector<std::string> feature_names;  // XGBoost's "f0", "f1", ... when the file has none
  std::vector<TreeSpec> trees;
};

// The deepest tree accepted: deeper ones are refused rather than risking deep recursion.
inline constexpr int kMaxTreeDepth = 128;
// Bounds on untrusted sizes, far beyond any real model.
inline constexpr size_t kMaxTrees = 1'000'000;
inline constexpr size_t kMaxNodesPerTree = size_t{1} << 24;
inline constexpr size_t kMaxTotalNodes = size_t{1} << 28;
inline constexpr size_t kMaxFeatures = size_t{1} << 20;

}  // namespace verdict::model
