// Detection metrics over scored, labelled rows: PR-AUC (average precision), the threshold that
// flags a given share of rows, precision/recall/F1 there, recall per typology, and AMLSim's
// account-level recall. Pure functions over caller-owned spans; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/json_writer.h"

namespace verdict::training {

struct TypologyRecall {
  size_t positives = 0;
  size_t detected = 0;
  double recall() const { return positives == 0 ? 0.0 : static_cast<double>(detected) / positives; }
};

struct DetectionReport {
  size_t rows = 0;
  size_t positives = 0;
  double pr_auc = 0;      // average precision over the ranking by score (ties as one step)
  double threshold = 0;   // flagged: score >= threshold
  double alert_rate = 0;  // flagged / rows
  size_t flagged = 0;
  size_t true_positives = 0;
  double precision = 0;
  double recall = 0;
  double f1 = 0;
  std::map<std::string, TypologyRecall> by_typology;  // positives only; "" for no typology
};

// Average precision: sum over distinct score levels (descending) of precision × Δrecall.
// Rows with equal scores enter together, so the value does not depend on row order.
double AveragePrecision(std::span<const double> scores, std::span<const uint8_t> labels);

// The smallest score s such that at most ceil(rate × n) rows have score >= s (ties are never
// split, so the realized rate can be lower). rate in (0, 1]; returns +inf for n = 0.
double ThresholdAtRate(std::span<const double> scores, double rate);

// Every metric at `threshold` (pr_auc over all rows). `typologies` may be empty.
DetectionReport EvaluateAtThreshold(std::span<const double> scores, std::span<const uint8_t> labels,
                                    std::span<const std::string> typologies, double threshold);
// As above, at ThresholdAtRate(scores, alert_rate).
DetectionReport EvaluateAtRate(std::span<const double> scores, std::span<const uint8_t> labels,
                               std::span<const std::string> typologies, double alert_rate);
// Detection by a yes/no flag per row (a policy outcome of review or block) instead of a score.
DetectionReport EvaluateFlags(std::span<const uint8_t> flagged, std::span<const uint8_t> labels,
                              std::span<const std::string> typologies);

// AMLSim's account-level evaluation (its README): an account's flag score is the highest
// score of any transaction it sent or received; a fraud account counts as detected when one of
// its transactions at or after its fraudStep reaches the threshold, which is set so that
// `flag_rate` of all accounts are flagged. Average precision ranks the accounts by that score,
// a fraud account by its highest score at or after its fraudStep (the only ones that detect it).
class AccountEvaluator {
 public:
  // `fraud_step`: account → fraudStep (-1 = normal), as TransactionReader gives it.
  explicit AccountEvaluator(const std::unordered_map<std::string, int64_t>& fraud_step);
  // One transaction at AMLSim step `step` (time since the epoch in days) with its score.
  void Add(std::string_view sender, std::string_view receiver, int64_t step, double score);

  struct Report {
    size_t accounts = 0;        // every account of nodes.csv
    size_t fraud_accounts = 0;  // isFraud = 1
    double flag_rate = 0;
    double threshold = 0;
    size_t flagged = 0;
    size_t detected = 0;  // fraud accounts flagged at or after their fraudStep
    double precision = 0;
    double recall = 0;
    double f1 = 0;
    double average_precision = 0;  // over every account; independent of the threshold
  };
  // Threshold set so that `flag_rate` of the accounts are flagged.
  Report Evaluate(double flag_rate) const;
  // Flagged: max score >= threshold (flag_rate is then the realized share).
  Report EvaluateAtThreshold(double threshold) const;

 private:
  struct Account {
    int64_t fraud_step = -1;
    double max_score = -1;        // over every transaction (for the flag share)
    double max_score_after = -1;  // over transactions at or after fraud_step
  };
  void Touch(std::string_view account, int64_t step, double score);
  double AccountAveragePrecision() const;

  std::unordered_map<std::string, Account> accounts_;
};

// JSON objects of the reports (docs/training.md): the keys of DetectionReport and Report.
void WriteDetectionJson(JsonWriter& w, const DetectionReport& r);
void WriteAccountJson(JsonWriter& w, const AccountEvaluator::Report& r);

}  // namespace verdict::training
