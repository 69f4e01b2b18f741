// The trainer's evaluation step: ranks the hold-out rows by the supervised score, the anomaly
// score and risk (fitting the risk calibration there first), reports detection for each at the
// alert rate, and scores the held-out typologies' rows as unseen. Free function; no state.
#pragma once

#include <vector>

#include "model/forest.h"
#include "model/isolation_forest.h"
#include "training/trainer.h"
#include "training/training_set.h"

namespace verdict::training {

// Fills result.holdout, holdout_anomaly (when `anomaly` is not null), risk, holdout_risk,
// holdout_accounts (AMLSim folders) and unseen. The risk calibration is fitted on the hold-out
// rows other than the held-out typologies' positives, so those stay unseen by every stage.
void EvaluateHoldout(const TrainOptions& options, const TrainingSet& set,
                     const std::vector<size_t>& holdout_rows, const model::Forest& forest,
                     const model::IsolationForest* anomaly, TrainResult& result);

// True when row i of the set is a positive of a typology held out of training.
bool IsHeldOutPositive(const TrainOptions& options, const TrainingSet& set, size_t i);

}  // namespace verdict::training
