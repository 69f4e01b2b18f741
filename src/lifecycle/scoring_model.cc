#include "lifecycle/scoring_model.h"

#include <algorithm>

#include "model/top_k.h"

namespace verdict::lifecycle {

Result<std::shared_ptr<const ScoringModel>> ScoringModel::Create(
    std::string name, std::string version, std::shared_ptr<const model::Forest> forest,
    std::span<const std::string_view> schema, std::string_view field) {
  return Create(std::move(name), std::move(version), std::move(forest), schema, field, nullptr,
                std::nullopt);
}

Result<std::shared_ptr<const ScoringModel>> ScoringModel::Create(
    std::string name, std::string version, std::shared_ptr<const model::Forest> forest,
    std::span<const std::string_view> schema, std::string_view field,
    std::shared_ptr<const model::IsolationForest> anomaly,
    std::optional<model::RiskCalibration> risk) {
  if (anomaly != nullptr && anomaly->num_features() != forest->num_features()) {
    return InvalidArgument("anomaly model of " + name + " v" + version + " has " +
                               std::to_string(anomaly->num_features()) + " features, the model " +
                               std::to_string(forest->num_features()),
                           "anomaly");
  }
  if (risk && risk->uses_anomaly && anomaly == nullptr) {
    return InvalidArgument("risk calibration of " + name + " v" + version +
                               " uses an anomaly score, but there is no anomaly model",
                           "risk");
  }
  std::shared_ptr<ScoringModel> stage(new ScoringModel());
  stage->anomaly_ = std::move(anomaly);
  stage->risk_ = risk;
  FeatureView names{{}, schema, {}};
  for (const std::string& feature : forest->feature_names()) {
    auto index = names.IndexOf(feature);
    if (!index) {
      return InvalidArgument("model " + name + " v" + version + " uses feature '" + feature +
                                 "', which the engine's feature schema does not have",
                             std::string(field));
    }
    stage->schema_index_.push_back(*index);
  }
  stage->ref_ = ModelRef{std::move(name), std::move(version), forest->sha256()};
  stage->forest_ = std::move(forest);
  return std::shared_ptr<const ScoringModel>(std::move(stage));
}

const float* ScoringModel::Row(const FeatureView& features) const {
  thread_local std::vector<float> row;
  row.resize(schema_index_.size());
  for (size_t i = 0; i < schema_index_.size(); ++i) {
    row[i] = static_cast<float>(features.values[schema_index_[i]]);
  }
  return row.data();
}

double ScoringModel::Score(const FeatureView& features) const {
  return forest_->Probability(forest_->PredictMargin(Row(features)));
}

std::vector<Contribution> ScoringModel::Explain(const FeatureView& features, size_t k) const {
  const float* row = Row(features);
  thread_local std::vector<double> contributions;
  contributions.assign(forest_->num_features() + 1, 0.0);
  forest_->ExplainTreeShap(row, contributions.data());
  std::vector<Contribution> out;
  for (const auto& c : model::TopK(*forest_, row, contributions.data(), k)) {
    out.push_back({std::string(c.name), c.value, c.contribution});
  }
  return out;
}

std::optional<double> ScoringModel::Anomaly(const FeatureView& features) const {
  if (anomaly_ == nullptr) return std::nullopt;
  return anomaly_->Score(Row(features));
}

std::vector<Contribution> ScoringModel::ExplainAnomaly(const FeatureView& features,
                                                       size_t k) const {
  std::vector<Contribution> out;
  if (anomaly_ == nullptr) return out;
  const float* row = Row(features);
  thread_local std::vector<double> attribution;
  attribution.assign(anomaly_->num_features(), 0.0);
  anomaly_->Explain(row, attribution.data());
  std::vector<size_t> order;
  for (size_t f = 0; f < attribution.size(); ++f) {
    if (attribution[f] > 0) order.push_back(f);
  }
  const size_t n = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](size_t a, size_t b) {
                      return attribution[a] != attribution[b] ? attribution[a] > attribution[b]
                                                              : a < b;
                    });
  for (size_t i = 0; i < n; ++i) {
    const size_t f = order[i];
    out.push_back({forest_->feature_names()[f], row[f], attribution[f]});
  }
  return out;
}

double ScoringModel::Risk(double score, std::optional<double> anomaly) const {
  if (!risk_) return score;
  return risk_->Risk(score, anomaly.value_or(0.5));
}

}  // namespace verdict::lifecycle
