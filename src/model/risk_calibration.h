// RiskCalibration: one risk in [0, 1] to rank by, from the supervised score and the anomaly
// score: a logistic regression over [logit(score), logit(anomaly)] fitted (Newton's method with
// step halving, a ridge of 1 on the two standardized weights) on labelled hold-out rows, so risk reads as a
// probability of laundering. Without an anomaly model it is Platt scaling of the score alone.
// Stored as risk.json in a model directory ("risk-1"). Value type; thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/result.h"

namespace verdict::model {

inline constexpr const char* kRiskSchema = "risk-1";

struct RiskCalibration {
  double intercept = 0;
  double score_weight = 1;    // on logit(score)
  double anomaly_weight = 0;  // on logit(anomaly); 0 without an anomaly model
  bool uses_anomaly = false;

  // anomaly is ignored unless uses_anomaly.
  double Risk(double score, double anomaly) const;
  std::string Json() const;
  static Result<RiskCalibration> ParseJson(std::string_view json);
};

// logit(p) with p clamped to [1e-9, 1 − 1e-9], so a score of exactly 0 or 1 stays finite.
double ClampedLogit(double p);

// Fits the calibration on rows (anomalies empty: score alone). Labels 1 = laundering. With no
// positive or no negative row, the identity on the score is returned (nothing to fit).
RiskCalibration FitRiskCalibration(std::span<const double> scores,
                                   std::span<const double> anomalies,
                                   std::span<const uint8_t> labels);

}  // namespace verdict::model
