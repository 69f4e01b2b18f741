#include "engine/record_explanation.h"

#include <memory>

#include "features/feature_vector.h"

namespace verdict {
namespace {
// As many explanations as the engine gives a flagged decision (decide.cc kTopContributions).
constexpr size_t kTopContributions = 4;
}  // namespace

std::vector<Contribution> ExplainJournaledRecord(const lifecycle::TenantModels* models,
                                                 const journal::JournalRecord& record) {
  const Decision& d = record.decision;
  if (models == nullptr || d.path != DecisionPath::kModel || d.model.name.empty() ||
      record.feature_schema_version != kFeatureSchemaVersion ||
      record.features.size() != kFeatureNames.size()) {
    return {};
  }
  std::shared_ptr<const lifecycle::ModelSet> set = models->Current(record.tenant).set;
  for (const auto& model : {set->primary, set->candidate}) {
    if (model == nullptr) continue;
    const ModelRef& ref = model->ref();
    if (ref.name != d.model.name || ref.version != d.model.version ||
        ref.sha256 != d.model.sha256) {
      continue;
    }
    FeatureView view{record.features, kFeatureNames, kFeatureSchemaVersion};
    return model->Explain(view, kTopContributions);
  }
  return {};
}

}  // namespace verdict
