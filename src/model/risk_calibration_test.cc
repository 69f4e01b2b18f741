#include "model/risk_calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace verdict::model {
namespace {

// Laundering rows have a high anomaly (overlapping the normal rows' a little) and an
// uninformative score: the fit must lean on the
// anomaly and rank by it.
TEST(RiskCalibrationTest, LearnsTheInformativeInputAndRanksByIt) {
  std::vector<double> scores;
  std::vector<double> anomalies;
  std::vector<uint8_t> labels;
  for (int i = 0; i < 1000; ++i) {
    const bool positive = i % 50 == 0;
    scores.push_back(0.2 + 0.1 * (i % 7));  // positives fall on every residue alike
    anomalies.push_back(positive ? 0.5 + 0.002 * (i / 50) : 0.35 + 0.0002 * i);
    labels.push_back(positive);
  }
  const RiskCalibration fit = FitRiskCalibration(scores, anomalies, labels);
  EXPECT_TRUE(fit.uses_anomaly);
  EXPECT_GT(fit.anomaly_weight, 1);
  EXPECT_LT(std::abs(fit.score_weight), fit.anomaly_weight / 10);
  EXPECT_GT(fit.Risk(0.5, 0.7), fit.Risk(0.5, 0.4));
  EXPECT_GT(fit.Risk(0.5, 0.7), 0.5);
  EXPECT_LT(fit.Risk(0.5, 0.4), 0.1);
  // Calibrated: the mean risk is close to the base rate (0.02).
  double mean = 0;
  for (size_t i = 0; i < scores.size(); ++i) mean += fit.Risk(scores[i], anomalies[i]);
  EXPECT_NEAR(mean / scores.size(), 0.02, 0.005);
}

// A good model's hold-out: the score all but separates the classes, with logits near ±15. The
// fit must stay moderate, so risk keeps the score's order instead of saturating at 1.
TEST(RiskCalibrationTest, NearlySeparableRowsKeepTheScoresOrder) {
  std::vector<double> scores;
  std::vector<double> anomalies;
  std::vector<uint8_t> labels;
  for (int i = 0; i < 5000; ++i) {
    const bool positive = i % 100 == 0;
    const double logit = positive ? 8 + (i % 700) / 100.0 : -15 + (i % 997) / 100.0;
    scores.push_back(1 / (1 + std::exp(-logit)));
    anomalies.push_back(0.3 + 0.4 * ((i * 7919) % 1000) / 1000.0);
    labels.push_back(positive || i == 4999);  // one positive among the negatives: not separable
  }
  const RiskCalibration fit = FitRiskCalibration(scores, anomalies, labels);
  EXPECT_LT(std::abs(fit.score_weight), 5);
  EXPECT_LT(std::abs(fit.anomaly_weight), 5);
  EXPECT_LT(std::abs(fit.intercept), 50);
  // Positives with different scores get different risks, below 1.
  const double a = fit.Risk(scores[0], anomalies[0]);
  const double b = fit.Risk(scores[100], anomalies[0]);
  EXPECT_LT(a, 1.0);
  EXPECT_LT(b, 1.0);
  EXPECT_NE(a, b);
  EXPECT_GT(fit.Risk(0.999, 0.5), fit.Risk(0.5, 0.5));
}

TEST(RiskCalibrationTest, ScoreAloneAndDegenerateLabels) {
  const std::vector<double> scores = {0.1, 0.2, 0.8, 0.9, 0.3, 0.7};
  const std::vector<uint8_t> labels = {0, 0, 1, 1, 0, 1};
  const RiskCalibration fit = FitRiskCalibration(scores, {}, labels);
  EXPECT_FALSE(fit.uses_anomaly);
  EXPECT_EQ(fit.anomaly_weight, 0);
  EXPECT_GT(fit.score_weight, 0);
  EXPECT_TRUE(std::isfinite(fit.intercept));  // separable rows: the ridge keeps it finite
  EXPECT_GT(fit.Risk(0.9, 0.99), fit.Risk(0.1, 0.99));
  // No positives: the identity on the score.
  const RiskCalibration none = FitRiskCalibration(scores, {}, std::vector<uint8_t>(6, 0));
  EXPECT_NEAR(none.Risk(0.3, 0), 0.3, 1e-12);
}

TEST(RiskCalibrationTest, JsonRoundTripAndRefusals) {
  RiskCalibration fit{
      .intercept = -3.5, .score_weight = 0.75, .anomaly_weight = 2.25, .uses_anomaly = true};
  auto parsed = RiskCalibration::ParseJson(fit.Json());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->Risk(0.4, 0.6), fit.Risk(0.4, 0.6));
  EXPECT_EQ(RiskCalibration::ParseJson("[]").status().field(), "risk");
  EXPECT_EQ(RiskCalibration::ParseJson(R"({"schema":"risk-2"})").status().field(), "schema");
  EXPECT_EQ(RiskCalibration::ParseJson(
                R"({"schema":"risk-1","intercept":"x","score_weight":1,"anomaly_weight":0,)"
                R"("uses_anomaly":false})")
                .status()
                .field(),
            "intercept");
  EXPECT_EQ(RiskCalibration::ParseJson(
                R"({"schema":"risk-1","intercept":0,"score_weight":1,"anomaly_weight":0})")
                .status()
                .field(),
            "uses_anomaly");
}

}  // namespace
}  // namespace verdict::model
