// Forest: a loaded tree ensemble compiled for scoring: flat node arrays, 12-byte nodes,
// children adjacent. Immutable once built, so one instance is shared by all threads freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/model_spec.h"
#include "model/objective.h"

namespace verdict::model {

class Forest {
 public:
  // One node of the compiled layout. Floats are compared as order-preserving unsigned keys
  // (see Key), so a split is one integer compare: a row goes to `right - 1` (the left child)
  // when keys[slot] < key and to `right` otherwise. The key buffer holds the row twice: as
  // given (NaN as the largest key, so it goes right), then with NaN as key 0 (so it goes
  // left); `slot` is the feature index for a split whose missing values go right and
  // num_features + the index when they go left. A leaf has key 0 and right = its own index, so
  // extra steps stay on it: every tree can be walked a fixed number of steps without testing
  // for leaves.
  struct Node {
    uint32_t key;
    uint32_t slot;
    uint32_t right;
  };

  // Maps floats to unsigned integers in the same order, -0 and +0 alike, as `<` on float
  // (thresholds are finite; NaN is handled by the buffer, not by this function).
  static uint32_t Key(float x) {
    uint32_t bits;
    x += 0.0f;  // -0 becomes +0
    __builtin_memcpy(&bits, &x, sizeof(bits));
    return bits ^ ((bits & 0x80000000u) ? 0xffffffffu : 0x80000000u);
  }
  static uint32_t Next(const Node& node, const uint32_t* keys) {
    return node.right - static_cast<uint32_t>(keys[node.slot] < node.key);
  }
  bool IsLeaf(uint32_t index) const { return nodes_[index].right == index; }

  // Parses and compiles an XGBoost 1.7 JSON model (see xgboost_json_loader.h).
  static Result<std::shared_ptr<const Forest>> LoadXGBoostJson(std::string_view json);
  static Result<std::shared_ptr<const Forest>> LoadFile(const std::string& path);
  // Compiles an already-checked spec; `sha256` is the hex digest recorded for the source.
  static std::shared_ptr<const Forest> Compile(const ModelSpec& spec, std::string sha256);

  size_t num_features() const { return num_features_; }
  const std::vector<std::string>& feature_names() const { return feature_names_; }
  size_t num_trees() const { return roots_.size(); }
  // The deepest tree's depth (edges from the root to its deepest leaf).
  int max_depth() const { return max_depth_; }
  size_t num_nodes() const { return nodes_.size(); }
  Objective objective() const { return objective_; }
  float base_score() const { return base_score_; }
  float base_margin() const { return base_margin_; }
  // Hex SHA-256 of the model file's bytes.
  const std::string& sha256() const { return sha256_; }

  // `row` holds num_features() floats; NaN means missing. The sum is taken in float, tree by
  // tree from the base margin, in the order XGBoost uses, so results match it exactly.
  float PredictMargin(const float* row) const;
  // Row-major rows, num_features() apart; writes n_rows margins.
  void PredictMarginBatch(const float* rows, size_t n_rows, float* out) const;
  // XGBoost's node id of the leaf each tree sends `row` to (out: num_trees() entries).
  void PredictLeaves(const float* row, int32_t* out) const;

  // See objective.h: Probability is the sigmoid for logistic objectives, the margin for
  // reg:squarederror; Prediction is exactly what XGBoost's predict() returns.
  double Probability(float margin) const { return ProbabilityOf(objective_, margin); }
  float Prediction(float margin) const { return PredictionOf(objective_, margin); }

  // Exact path-dependent TreeSHAP; contributions has num_features() + 1 entries, the last
  // being the bias (expected margin). They sum to the margin. See tree_shap.h.
  void ExplainTreeShap(const float* row, double* contributions) const;
  // Saabas path attribution: cheaper, approximate (not Shapley values); same layout and the
  // same sum. See saabas.h.
  void ExplainSaabas(const float* row, double* contributions) const;

  // Compiled layout, for the explainers.
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<uint32_t>& roots() const { return roots_; }
  // Per tree: its depth.
  const std::vector<uint8_t>& depths() const { return depths_; }
  // Per node: the leaf value (0 for splits).
  const std::vector<float>& leaf_values() const { return leaf_values_; }
  // Per node: the share of its parent's cover that reaches it (1 for roots).
  const std::vector<double>& cover_fractions() const { return cover_fractions_; }
  // Per node: the cover-weighted mean of the leaves below it (XGBoost's node mean value).
  const std::vector<double>& mean_values() const { return mean_values_; }
  // Expected margin: base margin plus each tree's root mean value.
  double bias() const { return bias_; }

  // Fills keys (2 * num_features() entries, at least 1) as the Node comment describes.
  void FillKeys(const float* row, uint32_t* keys) const;

 private:
  Forest() = default;

  size_t num_features_ = 0;
  std::vector<std::string> feature_names_;
  Objective objective_ = Objective::kRegSquaredError;
  float base_score_ = 0;
  float base_margin_ = 0;
  std::string sha256_;
  int max_depth_ = 0;
  double bias_ = 0;

  std::vector<Node> nodes_;
  std::vector<uint32_t> roots_;
  std::vector<uint8_t> depths_;  // per tree
  // Per group of kGroup consecutive trees: the most steps any of them needs.
  std::vector<uint8_t> group_depths_;
  std::vector<float> leaf_values_;
  std::vector<int32_t> xgboost_ids_;
  std::vector<double> cover_fractions_;
  std::vector<double> mean_values_;
};

}  // namespace verdict::model
