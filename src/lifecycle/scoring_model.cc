#include "lifecycle/scoring_model.h"

#include "model/top_k.h"

namespace verdict::lifecycle {

Result<std::shared_ptr<const ScoringModel>> ScoringModel::Create(
    std::string name, std::string version, std::shared_ptr<const model::Forest> forest,
    std::span<const std::string_view> schema, std::string_view field) {
  std::shared_ptr<ScoringModel> stage(new ScoringModel());
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

}  // namespace verdict::lifecycle
