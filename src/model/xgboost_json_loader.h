// Reads XGBoost's JSON model format (Booster.save_model("m.json"), XGBoost 1.7) into a
// checked ModelSpec. The input is untrusted: every failure is a Status, never a crash or hang.
// Stateless; thread-safe.
#pragma once

#include <string_view>

#include "common/result.h"
#include "model/model_spec.h"

namespace verdict::model {

// Accepts gbtree boosters with numeric splits and one output (objectives binary:logistic,
// binary:logitraw, reg:logistic, reg:squarederror). Refuses, naming what is unsupported: dart
// and gblinear boosters, categorical splits, multi-class and multi-target models. Checks the
// structure: array lengths, child indices in range, every node reached at most once (no
// cycles), depth at most kMaxTreeDepth, finite thresholds and leaf values, feature indices
// below num_feature.
Result<ModelSpec> ParseXGBoostJson(std::string_view json);

// The largest model text accepted.
inline constexpr size_t kMaxModelBytes = size_t{1} << 30;

}  // namespace verdict::model
