#include "model/risk_calibration.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "common/json_writer.h"

namespace verdict::model {
namespace {

constexpr int kMaxIterations = 50;
// The ridge keeps the weights finite when the rows are separable (a perfect hold-out).
constexpr double kRidge = 1e-2;

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
  const size_t n = scores.size();
  size_t positives = 0;
  for (uint8_t y : labels) positives += y;
  if (positives == 0 || positives == n) return fit;
  std::array<double, 3> w = {0, 1, 0};
  for (int iter = 0; iter < kMaxIterations; ++iter) {
    std::array<std::array<double, 3>, 3> hessian{};
    std::array<double, 3> gradient{};
    for (size_t i = 0; i < n; ++i) {
      const std::array<double, 3> x = {1, ClampedLogit(scores[i]),
                                       fit.uses_anomaly ? ClampedLogit(anomalies[i]) : 0.0};
      const double p = Sigmoid(w[0] + w[1] * x[1] + w[2] * x[2]);
      const double r = p - labels[i];
      const double v = std::max(p * (1 - p), 1e-12);
      for (int a = 0; a < 3; ++a) {
        gradient[a] += r * x[a];
        for (int b = 0; b < 3; ++b) hessian[a][b] += v * x[a] * x[b];
      }
    }
    for (int a = 1; a < 3; ++a) {
      gradient[a] += kRidge * w[a];
      hessian[a][a] += kRidge;
    }
    if (!fit.uses_anomaly) hessian[2][2] += 1;  // the unused weight stays 0
    std::array<double, 3> step{};
    if (!Solve3(hessian, gradient, &step)) break;
    double change = 0;
    for (int a = 0; a < 3; ++a) {
      w[a] -= step[a];
      change = std::max(change, std::abs(step[a]));
    }
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
