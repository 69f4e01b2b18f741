#include "model/xgboost_trainer_test.h"

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace verdict::model::testing {
namespace {

DMatrixHandle MakeDMatrix(const Dataset& data, const std::vector<std::string>& feature_names) {
  DMatrixHandle m = nullptr;
  CheckXgb(XGDMatrixCreateFromMat(data.x.data(), data.rows, data.cols,
                                  std::numeric_limits<float>::quiet_NaN(), &m));
  if (!data.y.empty()) CheckXgb(XGDMatrixSetFloatInfo(m, "label", data.y.data(), data.rows));
  if (!feature_names.empty()) {
    std::vector<const char*> names;
    for (const std::string& name : feature_names) names.push_back(name.c_str());
    CheckXgb(XGDMatrixSetStrFeatureInfo(m, "feature_name", names.data(), names.size()));
  }
  return m;
}

}  // namespace

void CheckXgb(int rc) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost: ") + XGBGetLastError());
}

Dataset MakeDataset(size_t rows, size_t cols, double missing_rate, uint32_t seed, bool binary) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Dataset d;
  d.rows = rows;
  d.cols = cols;
  d.x.resize(rows * cols);
  d.y.resize(rows);
  for (size_t r = 0; r < rows; ++r) {
    float* row = &d.x[r * cols];
    for (size_t c = 0; c < cols; ++c) {
      row[c] = normal(rng);
      // Feature 1 takes a handful of values, so thresholds coincide with feature values.
      if (c == 1) row[c] = std::round(row[c] * 2.0f) / 2.0f;
    }
    const auto v = [&](size_t c) { return c < cols ? row[c] : 0.0f; };
    double score = 1.5 * v(0) - v(1) + 0.8 * v(2) * v(3) + std::sin(2.0 * v(4)) +
                   (v(5) > 0.5 ? 1.0 : -0.3) + 0.5 * normal(rng);
    for (size_t c = 0; c < cols; ++c) {
      if (uniform(rng) < missing_rate) row[c] = std::numeric_limits<float>::quiet_NaN();
    }
    // Missingness itself carries signal, so default directions matter.
    if (std::isnan(row[0])) score += 1.0;
    d.y[r] = binary ? (score > 0.3 ? 1.0f : 0.0f) : static_cast<float>(score);
  }
  return d;
}

Booster::Booster(const Dataset& train, const std::map<std::string, std::string>& params, int rounds,
                 const std::vector<std::string>& feature_names) {
  DMatrixHandle m = MakeDMatrix(train, feature_names);
  try {
    CheckXgb(XGBoosterCreate(&m, 1, &handle_));
    for (const auto& [key, value] : params) {
      CheckXgb(XGBoosterSetParam(handle_, key.c_str(), value.c_str()));
    }
    for (int i = 0; i < rounds; ++i) CheckXgb(XGBoosterUpdateOneIter(handle_, i, m));
    // The C API leaves the booster's own names unset (Python's wrapper sets them likewise).
    if (!feature_names.empty()) {
      std::vector<const char*> names;
      for (const std::string& name : feature_names) names.push_back(name.c_str());
      CheckXgb(XGBoosterSetStrFeatureInfo(handle_, "feature_name", names.data(), names.size()));
    }
  } catch (...) {
    XGDMatrixFree(m);
    throw;
  }
  XGDMatrixFree(m);
}

Booster::~Booster() {
  if (handle_ != nullptr) XGBoosterFree(handle_);
}

std::string Booster::SaveJson() const {
  bst_ulong length = 0;
  const char* bytes = nullptr;
  CheckXgb(XGBoosterSaveModelToBuffer(handle_, "{\"format\":\"json\"}", &length, &bytes));
  return std::string(bytes, length);
}

std::vector<float> Booster::Predict(const Dataset& data, PredictType type) const {
  Dataset features = data;
  features.y.clear();
  DMatrixHandle m = MakeDMatrix(features, {});
  const std::string config = "{\"type\":" + std::to_string(static_cast<int>(type)) +
                             ",\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
                             "\"strict_shape\":false}";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  try {
    CheckXgb(XGBoosterPredictFromDMatrix(handle_, m, config.c_str(), &shape, &dim, &result));
  } catch (...) {
    XGDMatrixFree(m);
    throw;
  }
  size_t size = 1;
  for (bst_ulong i = 0; i < dim; ++i) size *= shape[i];
  std::vector<float> out(result, result + size);
  XGDMatrixFree(m);
  return out;
}

}  // namespace verdict::model::testing
