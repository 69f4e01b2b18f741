#include "training/detection_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace verdict::training {
namespace {

TEST(AveragePrecisionTest, PerfectAndInterleavedRankings) {
  const std::vector<double> scores = {0.9, 0.8, 0.7, 0.6};
  EXPECT_DOUBLE_EQ(AveragePrecision(scores, std::vector<uint8_t>{1, 1, 0, 0}), 1.0);
  // Positives at ranks 1 and 3: (1/1 + 2/3) / 2.
  EXPECT_DOUBLE_EQ(AveragePrecision(scores, std::vector<uint8_t>{1, 0, 1, 0}), (1 + 2.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(AveragePrecision(scores, std::vector<uint8_t>{0, 0, 0, 0}), 0.0);
}

TEST(AveragePrecisionTest, TiesEnterTogether) {
  // All tied: precision is the base rate whatever the row order.
  const std::vector<double> scores = {0.5, 0.5, 0.5, 0.5};
  EXPECT_DOUBLE_EQ(AveragePrecision(scores, std::vector<uint8_t>{1, 0, 0, 0}), 0.25);
  EXPECT_DOUBLE_EQ(AveragePrecision(scores, std::vector<uint8_t>{0, 0, 0, 1}), 0.25);
}

TEST(ThresholdAtRateTest, NeverSplitsTies) {
  const std::vector<double> scores = {5, 4, 3, 3, 2, 1, 1, 1, 0, 0};
  EXPECT_EQ(ThresholdAtRate(scores, 0.2), 4);  // top 2
  EXPECT_EQ(ThresholdAtRate(scores, 0.3), 4);  // 3 would split the tie at 3
  EXPECT_EQ(ThresholdAtRate(scores, 0.4), 3);
  EXPECT_TRUE(std::isinf(ThresholdAtRate(std::vector<double>{}, 0.5)));
}

TEST(EvaluateTest, PerTypologyRecallAtRate) {
  const std::vector<double> scores = {0.9, 0.8, 0.1, 0.05, 0.7, 0.0};
  const std::vector<uint8_t> labels = {1, 1, 1, 0, 0, 0};
  const std::vector<std::string> typ = {"fan_in", "cycle", "cycle", "", "", ""};
  DetectionReport r = EvaluateAtRate(scores, labels, typ, 0.5);  // top 3
  EXPECT_EQ(r.flagged, 3u);
  EXPECT_EQ(r.true_positives, 2u);
  EXPECT_DOUBLE_EQ(r.precision, 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.recall, 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.by_typology["fan_in"].recall(), 1.0);
  EXPECT_DOUBLE_EQ(r.by_typology["cycle"].recall(), 0.5);
  EXPECT_EQ(r.by_typology.count(""), 0u);  // only positives are broken down
}

TEST(AccountEvaluatorTest, DetectedOnlyAtOrAfterFraudStep) {
  std::unordered_map<std::string, int64_t> steps = {{"A", 5}, {"B", -1}, {"C", -1}, {"D", 2}};
  AccountEvaluator e(steps);
  e.Add("A", "B", 3, 0.9);  // before A's fraudStep: flags A and B, detects nothing
  e.Add("D", "C", 2, 0.8);  // at D's fraudStep: detects D
  auto r = e.EvaluateAtThreshold(0.8);
  EXPECT_EQ(r.accounts, 4u);
  EXPECT_EQ(r.fraud_accounts, 2u);
  EXPECT_EQ(r.flagged, 4u);
  EXPECT_EQ(r.detected, 1u);
  EXPECT_DOUBLE_EQ(r.recall, 0.5);
  EXPECT_DOUBLE_EQ(r.precision, 0.25);
  auto top = e.Evaluate(0.25);  // one account: A or B at 0.9
  EXPECT_EQ(top.flagged, 0u);   // A and B tie at 0.9, and two do not fit in one
}

TEST(AccountEvaluatorTest, AveragePrecisionRanksFraudAccountsByScoreAfterFraudStep) {
  std::unordered_map<std::string, int64_t> steps = {{"A", 5}, {"B", -1}, {"C", -1}, {"D", 0}};
  AccountEvaluator e(steps);
  e.Add("A", "B", 3, 0.9);  // A's highest score comes before its fraudStep: it does not count
  e.Add("A", "C", 6, 0.2);  // A after its fraudStep
  e.Add("D", "C", 1, 0.5);
  // Ranking: B 0.9 (normal), D 0.5 (fraud), C 0.5 (normal), A 0.2 (fraud). D and C tie: at
  // that level 1 of 3 seen are fraud; A then brings 2 of 4. AP = (1/3 + 2/4) / 2.
  EXPECT_DOUBLE_EQ(e.Evaluate(0.5).average_precision, (1.0 / 3 + 2.0 / 4) / 2);
  // Had A's score before its fraudStep counted, A would rank first with B: (1/2 + 2/4) / 2.
  EXPECT_NE(e.Evaluate(0.5).average_precision, 0.5);
}

}  // namespace
}  // namespace verdict::training
