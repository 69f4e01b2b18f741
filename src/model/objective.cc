#include "model/objective.h"

#include <cmath>
#include <string>

namespace verdict::model {

Result<Objective> ParseObjective(std::string_view name) {
  if (name == "binary:logistic") return Objective::kBinaryLogistic;
  if (name == "binary:logitraw") return Objective::kBinaryLogitRaw;
  if (name == "reg:logistic") return Objective::kRegLogistic;
  if (name == "reg:squarederror") return Objective::kRegSquaredError;
  return InvalidArgument("unsupported objective '" + std::string(name) +
                             "' (supported: binary:logistic, binary:logitraw, reg:logistic, "
                             "reg:squarederror)",
                         "learner.objective.name");
}

std::string_view ObjectiveName(Objective objective) {
  switch (objective) {
    case Objective::kBinaryLogistic:
      return "binary:logistic";
    case Objective::kBinaryLogitRaw:
      return "binary:logitraw";
    case Objective::kRegLogistic:
      return "reg:logistic";
    case Objective::kRegSquaredError:
      return "reg:squarederror";
  }
  return "unknown";
}

Result<float> BaseMargin(Objective objective, float base_score) {
  if (!std::isfinite(base_score)) {
    return InvalidArgument("base_score is not a finite number",
                           "learner.learner_model_param.base_score");
  }
  // Since XGBoost 1.4 binary:logitraw takes base_score as a margin too (no logit).
  if (objective == Objective::kRegSquaredError || objective == Objective::kBinaryLogitRaw) {
    return base_score;
  }
  if (!(base_score > 0.0f && base_score < 1.0f)) {
    return InvalidArgument("base_score must be in (0, 1) for a logistic objective",
                           "learner.learner_model_param.base_score");
  }
  return -std::log(1.0f / base_score - 1.0f);
}

float PredictionOf(Objective objective, float margin) {
  switch (objective) {
    case Objective::kBinaryLogistic:
    case Objective::kRegLogistic:
      return 1.0f / (1.0f + std::exp(-margin));
    case Objective::kBinaryLogitRaw:
    case Objective::kRegSquaredError:
      return margin;
  }
  return margin;
}

double ProbabilityOf(Objective objective, float margin) {
  if (objective == Objective::kRegSquaredError) return margin;
  return 1.0 / (1.0 + std::exp(-static_cast<double>(margin)));
}

}  // namespace verdict::model
