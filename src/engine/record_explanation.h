// The explanation of a journaled decision that was journaled without one (versions that
// explained a decision only after journaling it): recomputed from the record's features with the
// very model that decided (same name, version and sha256), when that model is still loaded for
// the record's own tenant (I7). Stateless; thread-safe as TenantModels is.
#pragma once

#include <vector>

#include "core/decision.h"
#include "journal/record.h"
#include "lifecycle/tenant_models.h"

namespace verdict {

// Empty when the model is gone, the record was not decided by a model, or its features are of
// another schema. `models` may be null (empty).
std::vector<Contribution> ExplainJournaledRecord(const lifecycle::TenantModels* models,
                                                 const journal::JournalRecord& record);

}  // namespace verdict
