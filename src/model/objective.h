// Objective: the learning objectives the runtime supports and what each means for the base
// score and for turning a margin into a prediction. Stateless functions; thread-safe.
#pragma once

#include <string_view>

#include "common/result.h"

namespace verdict::model {

enum class Objective { kBinaryLogistic, kBinaryLogitRaw, kRegLogistic, kRegSquaredError };

// Accepts exactly the XGBoost names ("binary:logistic", ...); anything else is an error that
// names the objective.
Result<Objective> ParseObjective(std::string_view name);
std::string_view ObjectiveName(Objective objective);

// XGBoost's ProbToMargin, in float as XGBoost computes it: binary:logistic and reg:logistic
// store base_score as a probability (margin = logit), binary:logitraw and reg:squarederror
// as the margin itself.
Result<float> BaseMargin(Objective objective, float base_score);

// What XGBoost's predict() returns for this margin (binary:logitraw: the margin itself).
float PredictionOf(Objective objective, float margin);

// The margin read as a probability: the logistic sigmoid for every logistic objective,
// binary:logitraw included (its margin is a log-odds too); squared error has no probability
// and returns the margin unchanged.
double ProbabilityOf(Objective objective, float margin);

}  // namespace verdict::model
