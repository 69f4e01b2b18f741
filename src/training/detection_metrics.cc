#include "training/detection_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace verdict::training {
namespace {

std::vector<size_t> OrderByScoreDescending(std::span<const double> scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

void Finish(DetectionReport* r) {
  r->alert_rate = r->rows == 0 ? 0.0 : static_cast<double>(r->flagged) / r->rows;
  r->precision = r->flagged == 0 ? 0.0 : static_cast<double>(r->true_positives) / r->flagged;
  r->recall = r->positives == 0 ? 0.0 : static_cast<double>(r->true_positives) / r->positives;
  r->f1 = r->precision + r->recall == 0 ? 0.0
                                        : 2 * r->precision * r->recall / (r->precision + r->recall);
}

}  // namespace

double AveragePrecision(std::span<const double> scores, std::span<const uint8_t> labels) {
  const size_t positives = static_cast<size_t>(std::count(labels.begin(), labels.end(), 1));
  if (positives == 0) return 0.0;
  const std::vector<size_t> order = OrderByScoreDescending(scores);
  double ap = 0;
  size_t seen = 0;
  size_t hits = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    size_t level_hits = 0;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) {
      level_hits += labels[order[j]] != 0;
      ++j;
    }
    seen += j - i;
    hits += level_hits;
    ap += static_cast<double>(hits) / seen * static_cast<double>(level_hits) / positives;
    i = j;
  }
  return ap;
}

double ThresholdAtRate(std::span<const double> scores, double rate) {
  if (scores.empty()) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted(scores.begin(), scores.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  const size_t budget = std::min(
      sorted.size(), static_cast<size_t>(std::ceil(rate * static_cast<double>(sorted.size()))));
  if (budget == 0) return std::numeric_limits<double>::infinity();
  // The lowest score level whose whole tie group still fits in the budget.
  double threshold = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < budget;) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    if (j > budget) break;
    threshold = sorted[i];
    i = j;
  }
  return threshold;
}

DetectionReport EvaluateAtThreshold(std::span<const double> scores, std::span<const uint8_t> labels,
                                    std::span<const std::string> typologies, double threshold) {
  std::vector<uint8_t> flagged(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) flagged[i] = scores[i] >= threshold;
  DetectionReport r = EvaluateFlags(flagged, labels, typologies);
  r.threshold = threshold;
  r.pr_auc = AveragePrecision(scores, labels);
  return r;
}

DetectionReport EvaluateAtRate(std::span<const double> scores, std::span<const uint8_t> labels,
                               std::span<const std::string> typologies, double alert_rate) {
  return EvaluateAtThreshold(scores, labels, typologies, ThresholdAtRate(scores, alert_rate));
}

DetectionReport EvaluateFlags(std::span<const uint8_t> flagged, std::span<const uint8_t> labels,
                              std::span<const std::string> typologies) {
  DetectionReport r;
  r.rows = flagged.size();
  for (size_t i = 0; i < flagged.size(); ++i) {
    const bool positive = labels[i] != 0;
    r.flagged += flagged[i] != 0;
    if (!positive) continue;
    ++r.positives;
    r.true_positives += flagged[i] != 0;
    if (!typologies.empty()) {
      TypologyRecall& t = r.by_typology[typologies[i]];
      ++t.positives;
      t.detected += flagged[i] != 0;
    }
  }
  Finish(&r);
  return r;
}

AccountEvaluator::AccountEvaluator(const std::unordered_map<std::string, int64_t>& fraud_step) {
  accounts_.reserve(fraud_step.size());
  for (const auto& [id, step] : fraud_step) accounts_[id].fraud_step = step;
}

void AccountEvaluator::Touch(std::string_view account, int64_t step, double score) {
  auto it = accounts_.find(std::string(account));
  if (it == accounts_.end()) it = accounts_.emplace(std::string(account), Account{}).first;
  Account& a = it->second;
  a.max_score = std::max(a.max_score, score);
  if (a.fraud_step >= 0 && step >= a.fraud_step) {
    a.max_score_after = std::max(a.max_score_after, score);
  }
}

void AccountEvaluator::Add(std::string_view sender, std::string_view receiver, int64_t step,
                           double score) {
  Touch(sender, step, score);
  if (receiver != sender) Touch(receiver, step, score);
}

AccountEvaluator::Report AccountEvaluator::Evaluate(double flag_rate) const {
  std::vector<double> scores;
  scores.reserve(accounts_.size());
  for (const auto& [id, a] : accounts_) scores.push_back(a.max_score);
  return EvaluateAtThreshold(ThresholdAtRate(scores, flag_rate));
}

double AccountEvaluator::AccountAveragePrecision() const {
  // Sorted by account id so that the result does not depend on the hash map's order (it does
  // not anyway, as ties enter together; sorting keeps the sums in one fixed order).
  std::vector<std::pair<std::string_view, const Account*>> sorted;
  sorted.reserve(accounts_.size());
  for (const auto& [id, a] : accounts_) sorted.emplace_back(id, &a);
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> scores;
  std::vector<uint8_t> labels;
  scores.reserve(sorted.size());
  labels.reserve(sorted.size());
  for (const auto& [id, a] : sorted) {
    const bool fraud = a->fraud_step >= 0;
    scores.push_back(fraud ? a->max_score_after : a->max_score);
    labels.push_back(fraud ? 1 : 0);
  }
  return AveragePrecision(scores, labels);
}

AccountEvaluator::Report AccountEvaluator::EvaluateAtThreshold(double threshold) const {
  Report r;
  r.average_precision = AccountAveragePrecision();
  r.accounts = accounts_.size();
  r.threshold = threshold;
  for (const auto& [id, a] : accounts_) {
    const bool fraud = a.fraud_step >= 0;
    r.fraud_accounts += fraud;
    r.flagged += a.max_score >= threshold;
    r.detected += fraud && a.max_score_after >= threshold;
  }
  r.flag_rate = r.accounts == 0 ? 0.0 : static_cast<double>(r.flagged) / r.accounts;
  r.precision = r.flagged == 0 ? 0.0 : static_cast<double>(r.detected) / r.flagged;
  r.recall = r.fraud_accounts == 0 ? 0.0 : static_cast<double>(r.detected) / r.fraud_accounts;
  r.f1 = r.precision + r.recall == 0 ? 0.0 : 2 * r.precision * r.recall / (r.precision + r.recall);
  return r;
}

void WriteDetectionJson(JsonWriter& w, const DetectionReport& r) {
  w.BeginObject()
      .Key("rows")
      .Uint(r.rows)
      .Key("positives")
      .Uint(r.positives)
      .Key("pr_auc")
      .Double(r.pr_auc)
      .Key("threshold")
      .Double(r.threshold)
      .Key("alert_rate")
      .Double(r.alert_rate)
      .Key("flagged")
      .Uint(r.flagged)
      .Key("true_positives")
      .Uint(r.true_positives)
      .Key("precision")
      .Double(r.precision)
      .Key("recall")
      .Double(r.recall)
      .Key("f1")
      .Double(r.f1)
      .Key("recall_by_typology")
      .BeginObject();
  for (const auto& [name, t] : r.by_typology) {
    w.Key(name.empty() ? "unknown" : name)
        .BeginObject()
        .Key("positives")
        .Uint(t.positives)
        .Key("detected")
        .Uint(t.detected)
        .Key("recall")
        .Double(t.recall())
        .EndObject();
  }
  w.EndObject().EndObject();
}

void WriteAccountJson(JsonWriter& w, const AccountEvaluator::Report& r) {
  w.BeginObject()
      .Key("accounts")
      .Uint(r.accounts)
      .Key("fraud_accounts")
      .Uint(r.fraud_accounts)
      .Key("flag_rate")
      .Double(r.flag_rate)
      .Key("threshold")
      .Double(r.threshold)
      .Key("flagged")
      .Uint(r.flagged)
      .Key("detected")
      .Uint(r.detected)
      .Key("precision")
      .Double(r.precision)
      .Key("recall")
      .Double(r.recall)
      .Key("f1")
      .Double(r.f1)
      .Key("average_precision")
      .Double(r.average_precision)
      .EndObject();
}

}  // namespace verdict::training
