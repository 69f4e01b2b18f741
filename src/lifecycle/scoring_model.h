// ScoringModel: one loaded tree ensemble as the engine uses it: maps the feature vector onto
// the model's own feature order (resolved by name once, at load), scores, and explains with
// exact TreeSHAP. Immutable after Create; thread-safe (per-call buffers are thread-local).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/decision.h"
#include "core/feature_view.h"
#include "model/forest.h"

namespace verdict::lifecycle {

class ScoringModel {
 public:
  // Every feature the model names must exist in `schema`; a model trained on another schema is
  // refused rather than fed zeros. `field` names the input in the error (e.g. "model.path").
  static Result<std::shared_ptr<const ScoringModel>> Create(
      std::string name, std::string version, std::shared_ptr<const model::Forest> forest,
      std::span<const std::string_view> schema, std::string_view field);

  // The probability (or regression output) for this transaction.
  double Score(const FeatureView& features) const;
  // The top `k` features by |TreeSHAP contribution|, with their values.
  std::vector<Contribution> Explain(const FeatureView& features, size_t k) const;

  const ModelRef& ref() const { return ref_; }
  const model::Forest& forest() const { return *forest_; }

 private:
  ScoringModel() = default;
  // Fills the thread's row buffer in the model's feature order.
  const float* Row(const FeatureView& features) const;

  std::shared_ptr<const model::Forest> forest_;
  std::vector<size_t> schema_index_;  // model feature i = schema feature schema_index_[i]
  ModelRef ref_;
};

}  // namespace verdict::lifecycle
