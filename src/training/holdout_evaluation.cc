#include "training/holdout_evaluation.h"

#include <algorithm>

namespace verdict::training {
namespace {

constexpr int64_t kMicrosPerDay = int64_t{86'400} * 1'000'000;

// Every ranking of one row.
struct RowScores {
  double score = 0;
  double anomaly = 0.5;
  double risk = 0;
};

RowScores ScoreRow(const model::Forest& forest, const model::IsolationForest* anomaly,
                   const TrainingSet& set, size_t i) {
  RowScores s;
  s.score = forest.Probability(forest.PredictMargin(set.Row(i)));
  if (anomaly != nullptr) s.anomaly = anomaly->Score(set.Row(i));
  return s;
}

void Count(TypologyRecall& recall, double value, double threshold) {
  ++recall.positives;
  recall.detected += value >= threshold;
}

// Every positive of a held-out typology, in either part, at the hold-out thresholds.
void EvaluateUnseen(const TrainOptions& options, const TrainingSet& set,
                    const model::Forest& forest, const model::IsolationForest* anomaly,
                    TrainResult& result) {
  for (const std::string& typology : options.holdout_typologies) {
    UnseenTypology u;
    u.typology = typology;
    for (size_t i = 0; i < set.rows; ++i) {
      if (!set.labelled[i] || !set.labels[i] || set.typologies[i] != typology) continue;
      RowScores s = ScoreRow(forest, anomaly, set, i);
      s.risk = result.risk.Risk(s.score, s.anomaly);
      Count(u.score, s.score, result.holdout.threshold);
      if (result.holdout_anomaly) Count(u.anomaly, s.anomaly, result.holdout_anomaly->threshold);
      Count(u.risk, s.risk, result.holdout_risk.threshold);
    }
    result.unseen.push_back(std::move(u));
  }
}

}  // namespace

bool IsHeldOutPositive(const TrainOptions& options, const TrainingSet& set, size_t i) {
  if (!set.labels[i]) return false;
  const auto& held = options.holdout_typologies;
  return std::find(held.begin(), held.end(), set.typologies[i]) != held.end();
}

void EvaluateHoldout(const TrainOptions& options, const TrainingSet& set,
                     const std::vector<size_t>& holdout_rows, const model::Forest& forest,
                     const model::IsolationForest* anomaly, TrainResult& result) {
  std::vector<double> scores, anomalies, risks;
  std::vector<uint8_t> labels;
  std::vector<std::string> typologies;
  std::vector<double> fit_scores, fit_anomalies;
  std::vector<uint8_t> fit_labels;
  for (size_t i : holdout_rows) {
    const RowScores s = ScoreRow(forest, anomaly, set, i);
    scores.push_back(s.score);
    anomalies.push_back(s.anomaly);
    labels.push_back(set.labels[i]);
    typologies.push_back(set.typologies[i]);
    if (IsHeldOutPositive(options, set, i)) continue;
    fit_scores.push_back(s.score);
    if (anomaly != nullptr) fit_anomalies.push_back(s.anomaly);
    fit_labels.push_back(set.labels[i]);
  }
  result.holdout = EvaluateAtRate(scores, labels, typologies, options.alert_rate);
  if (anomaly != nullptr) {
    result.holdout_anomaly = EvaluateAtRate(anomalies, labels, typologies, options.alert_rate);
  }
  result.risk = model::FitRiskCalibration(fit_scores, fit_anomalies, fit_labels);
  for (size_t k = 0; k < scores.size(); ++k) {
    risks.push_back(result.risk.Risk(scores[k], anomalies[k]));
  }
  result.holdout_risk = EvaluateAtRate(risks, labels, typologies, options.alert_rate);

  if (!set.fraud_step.empty()) {
    AccountEvaluator accounts(set.fraud_step);
    for (size_t k = 0; k < holdout_rows.size(); ++k) {
      const size_t i = holdout_rows[k];
      accounts.Add(set.senders[i], set.receivers[i],
                   (set.timestamps[i] - options.reader.amlsim_epoch_us) / kMicrosPerDay, scores[k]);
    }
    result.holdout_accounts = accounts.Evaluate(options.alert_rate);
  }
  EvaluateUnseen(options, set, forest, anomaly, result);
}

}  // namespace verdict::training
