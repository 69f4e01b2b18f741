#include "engine/model_stage.h"

#include "model/top_k.h"

namespace verdict {

Result<std::shared_ptr<const ModelStage>> ModelStage::Create(
    const ModelOptions& options, std::span<const std::string_view> schema) {
  VERDICT_ASSIGN_OR_RETURN(auto forest, model::Forest::LoadFile(options.path));
  std::shared_ptr<ModelStage> stage(new ModelStage());
  FeatureView names{{}, schema, {}};
  for (const std::string& name : forest->feature_names()) {
    auto index = names.IndexOf(name);
    if (!index) {
      return InvalidArgument("model " + options.path + " uses feature '" + name +
                                 "', which the engine's feature schema does not have",
                             "model.path");
    }
    stage->schema_index_.push_back(*index);
  }
  stage->ref_ = ModelRef{options.name, options.version, forest->sha256()};
  stage->forest_ = std::move(forest);
  return std::shared_ptr<const ModelStage>(std::move(stage));
}

const float* ModelStage::Row(const FeatureView& features) const {
  thread_local std::vector<float> row;
  row.resize(schema_index_.size());
  for (size_t i = 0; i < schema_index_.size(); ++i) {
    row[i] = static_cast<float>(features.values[schema_index_[i]]);
  }
  return row.data();
}

double ModelStage::Score(const FeatureView& features) const {
  return forest_->Probability(forest_->PredictMargin(Row(features)));
}

std::vector<Contribution> ModelStage::Explain(const FeatureView& features, size_t k) const {
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

}  // namespace verdict
