// Saabas path attribution: each split on the row's path credits its feature with the change
// in the expected value. Approximate (not Shapley values, order-dependent) but O(depth) per
// tree; offered as a cheaper option, never as SHAP. Stateless; thread-safe.
#pragma once

#include "model/forest.h"

namespace verdict::model {

// Same layout as TreeShap: num_features() + 1 entries, the last the bias; they sum to the
// margin. Equals XGBoost's approx_contribs.
void Saabas(const Forest& forest, const float* row, double* contributions);

}  // namespace verdict::model
