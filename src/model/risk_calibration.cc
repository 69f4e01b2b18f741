#include "model/risk_calibration.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "common/json_writer.h"

namespace verdict::model {
namespace {

constexpr int kMaxIterations = 50;
constexpr int kMaxHalvings = 40;
// The ridge (on the standardized weights) keeps them finite and moderate when the rows are
// (nearly) separable, as a good model's hold-out is: unbounded weights would push risk to
// exactly 0 or 1 and tie rows the score tells apart.
constexpr double kRidge = 1.0;

double Sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// Solves the 3×3 system a·x = b by Gaussian elimination with partial pivoting; false when
// singular.
bool Solve3(std::array<std::array<double, 3>, 3> a, std::array<double, 3> b,
            std::array<double, 3>* x) {
  for (int c = 0; c < 3; ++c) {
    int pivot = c;
    for (int r = c + 1; r < 3; ++r) {
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    }
    if (std::abs(a[pivot][c]) < 1e-300) return false;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (int r = c + 1; r < 3; ++r) {
      const double f = a[r][c] / a[c][c];
      for (int k = c; k < 3; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int c = 2; c >= 0; --c) {
    double s = b[c];
    for (int k = c + 1; k < 3; ++k) s -= a[c][k] * (*x)[k];
    (*x)[c] = s / a[c][c];
  }
  return true;
}

using Weights = std::array<double, 3>;

struct Row {
  double score_logit;
  double anomaly_logit;
  uint8_t label;
};

// The ridge's weight on each coefficient: kRidge × the input's variance, so the penalty is on
// the standardized weights and does not depend on the inputs' scale.
using Penalty = std::array<double, 3>;

Penalty RidgePenalty(const std::vector<Row>& rows) {
  Penalty penalty{};
  const double n = static_cast<double>(rows.size());
  double mean[2] = {0, 0};
  for (const Row& r : rows) {
    mean[0] += r.score_logit / n;
    mean[1] += r.anomaly_logit / n;
  }
  for (const Row& r : rows) {
    penalty[1] += (r.score_logit - mean[0]) * (r.score_logit - mean[0]) / n;
    penalty[2] += (r.anomaly_logit - mean[1]) * (r.anomaly_logit - mean[1]) / n;
  }
  for (int a = 1; a < 3; ++a) penalty[a] = kRidge * std::max(penalty[a], 1e-12);
  return penalty;
}

// The penalized negative log-likelihood (the ridge on the two weights, not the intercept).
double Objective(const std::vector<Row>& rows, const Penalty& penalty, const Weights& w) {
  double total = 0.5 * (penalty[1] * w[1] * w[1] + penalty[2] * w[2] * w[2]);
  for (const Row& r : rows) {
    const double z = w[0] + w[1] * r.score_logit + w[2] * r.anomaly_logit;
    // log(1 + e^z) − y·z, computed without overflow.
    total += (z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z))) - r.label * z;
  }
  return total;
}

// One Newton step (direction to subtract); false when the Hessian is singular.
bool NewtonStep(const std::vector<Row>& rows, const Penalty& penalty, const Weights& w,
                bool uses_anomaly, Weights* step) {
  std::array<std::array<double, 3>, 3> hessian{};
  Weights gradient{};
  for (const Row& r : rows) {
    const Weights x = {1, r.score_logit, r.anomaly_logit};
    const double p = Sigmoid(w[0] + w[1] * x[1] + w[2] * x[2]);
    const double residual = p - r.label;
    const double v = std::max(p * (1 - p), 1e-12);
    for (int a = 0; a < 3; ++a) {
      gradient[a] += residual * x[a];
      for (int b = 0; b < 3; ++b) hessian[a][b] += v * x[a] * x[b];
    }
  }
  for (int a = 1; a < 3; ++a) {
    gradient[a] += penalty[a] * w[a];
    hessian[a][a] += penalty[a];
  }
  if (!uses_anomaly) hessian[2][2] += 1;  // the unused weight stays 0
  return Solve3(hessian, gradient, step);
}

}  // namespace

double ClampedLogit(double p) {
  p = std::clamp(p, 1e-9, 1 - 1e-9);
  return std::log(p / (1 - p));
}

double RiskCalibration::Risk(double score, double anomaly) const {
  double z = intercept + score_weight * ClampedLogit(score);
  if (uses_anomaly) z += anomaly_weight * ClampedLogit(anomaly);
  return Sigmoid(z);
}

RiskCalibration FitRiskCalibration(std::span<const double> scores,
                                   std::span<const double> anomalies,
                                   std::span<const uint8_t> labels) {
  RiskCalibration fit;
  fit.uses_anomaly = !anomalies.empty();
  std::vector<Row> rows;
  size_t positives = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    rows.push_back(
        {ClampedLogit(scores[i]), fit.uses_anomaly ? ClampedLogit(anomalies[i]) : 0.0, labels[i]});
    positives += labels[i];
  }
  if (positives == 0 || positives == rows.size()) return fit;
  // Newton's method with step halving: every accepted step lowers the objective, so the fit
  // cannot run away on nearly separable rows.
  const Penalty penalty = RidgePenalty(rows);
  Weights w = {0, 1, 0};
  double objective = Objective(rows, penalty, w);
  for (int iter = 0; iter < kMaxIterations; ++iter) {
    Weights step{};
    if (!NewtonStep(rows, penalty, w, fit.uses_anomaly, &step)) break;
    double scale = 1;
    bool improved = false;
    Weights next{};
    for (int h = 0; h < kMaxHalvings && !improved; ++h, scale /= 2) {
      for (int a = 0; a < 3; ++a) next[a] = w[a] - scale * step[a];
      const double value = Objective(rows, penalty, next);
      improved = std::isfinite(value) && value <= objective;
      if (improved) objective = value;
    }
    if (!improved) break;
    double change = 0;
    for (int a = 0; a < 3; ++a) change = std::max(change, std::abs(next[a] - w[a]));
    w = next;
    if (change < 1e-9) break;
  }
  if (!std::all_of(w.begin(), w.end(), [](double v) { return std::isfinite(v); })) return fit;
  fit.intercept = w[0];
  fit.score_weight = w[1];
  fit.anomaly_weight = fit.uses_anomaly ? w[2] : 0;
  return fit;
}

std::string RiskCalibration::Json() const {
  std::string out;
  JsonWriter w(out);
  w.BeginObject()
      .Key("schema")
      .String(kRiskSchema)
      .Key("model")
      .String("logistic regression over logit(score), logit(anomaly)")
      .Key("intercept")
      .Double(intercept)
      .Key("score_weight")
      .Double(score_weight)
      .Key("anomaly_weight")
      .Double(anomaly_weight)
      .Key("uses_anomaly")
      .Bool(uses_anomaly)
      .EndObject();
  out += "\n";
  return out;
}

Result<RiskCalibration> RiskCalibration::ParseJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS || !root.is_object()) {
    return InvalidArgument("risk calibration: not a JSON object", "risk");
  }
  std::string_view schema;
  if (root["schema"].get_string().get(schema) != simdjson::SUCCESS || schema != kRiskSchema) {
    return InvalidArgument("risk calibration: 'schema' must be \"risk-1\"", "schema");
  }
  RiskCalibration fit;
  const std::pair<const char*, double*> numbers[] = {{"intercept", &fit.intercept},
                                                     {"score_weight", &fit.score_weight},
                                                     {"anomaly_weight", &fit.anomaly_weight}};
  for (const auto& [key, out] : numbers) {
    if (root[key].get_double().get(*out) != simdjson::SUCCESS || !std::isfinite(*out)) {
      return InvalidArgument(std::string("risk calibration: '") + key + "' must be a number", key);
    }
  }
  if (root["uses_anomaly"].get_bool().get(fit.uses_anomaly) != simdjson::SUCCESS) {
    return InvalidArgument("risk calibration: 'uses_anomaly' must be true or false",
                           "uses_anomaly");
  }
  return fit;
}

}  // namespace verdict::model
