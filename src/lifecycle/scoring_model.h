// ScoringModel: one loaded tree ensemble as the engine uses it: maps the feature vector onto
// the model's own feature order (resolved by name once, at load), scores, and explains with
// exact TreeSHAP; with the model directory's optional anomaly model (an isolation forest over
// the same features in the same order) and risk calibration, also the anomaly score, its
// explanation and the risk. Immutable after Create; thread-safe (per-call buffers are
// thread-local).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/decision.h"
#include "core/feature_view.h"
#include "model/forest.h"
#include "model/isolation_forest.h"
#include "model/risk_calibration.h"

namespace verdict::lifecycle {

class ScoringModel {
 public:
  // Every feature the model names must exist in `schema`; a model trained on another schema is
  // refused rather than fed zeros. `field` names the input in the error (e.g. "model.path").
  static Result<std::shared_ptr<const ScoringModel>> Create(
      std::string name, std::string version, std::shared_ptr<const model::Forest> forest,
      std::span<const std::string_view> schema, std::string_view field);
  // As above with the optional detection parts: `anomaly` (null: none) must have the forest's
  // feature count; a calibration that uses the anomaly needs one. Without a calibration, risk
  // is the score.
  static Result<std::shared_ptr<const ScoringModel>> Create(
      std::string name, std::string version, std::shared_ptr<const model::Forest> forest,
      std::span<const std::string_view> schema, std::string_view field,
      std::shared_ptr<const model::IsolationForest> anomaly,
      std::optional<model::RiskCalibration> risk);

  // The probability (or regression output) for this transaction.
  double Score(const FeatureView& features) const;
  // The top `k` features by |TreeSHAP contribution|, with their values.
  std::vector<Contribution> Explain(const FeatureView& features, size_t k) const;

  bool has_anomaly() const { return anomaly_ != nullptr; }
  // The anomaly score in (0, 1]; empty without an anomaly model.
  std::optional<double> Anomaly(const FeatureView& features) const;
  // The top `k` features by their share of the row's isolation (none without an anomaly model).
  std::vector<Contribution> ExplainAnomaly(const FeatureView& features, size_t k) const;
  // One risk in [0, 1] from the score and the anomaly (see model/risk_calibration.h).
  double Risk(double score, std::optional<double> anomaly) const;

  const ModelRef& ref() const { return ref_; }
  const model::Forest& forest() const { return *forest_; }

 private:
  ScoringModel() = default;
  // Fills the thread's row buffer in the model's feature order.
  const float* Row(const FeatureView& features) const;

  std::shared_ptr<const model::Forest> forest_;
  std::shared_ptr<const model::IsolationForest> anomaly_;
  std::optional<model::RiskCalibration> risk_;
  std::vector<size_t> schema_index_;  // model feature i = schema feature schema_index_[i]
  ModelRef ref_;
};

}  // namespace verdict::lifecycle
