// Test-only helper (compiled into verdict_model_test, never into the library): trains small
// XGBoost models through its C API and asks XGBoost for reference predictions. Not
// thread-safe; one Booster per test.
#pragma once

#include <xgboost/c_api.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace verdict::model::testing {

// Row-major float features with NaN for missing, and labels.
struct Dataset {
  size_t rows = 0;
  size_t cols = 0;
  std::vector<float> x;
  std::vector<float> y;
};

// Deterministic synthetic data: a few informative features (one of them discrete, so rows often
// sit exactly on a threshold), `missing_rate` of the cells NaN, and a label that is binary
// when `binary`, else continuous.
Dataset MakeDataset(size_t rows, size_t cols, double missing_rate, uint32_t seed, bool binary);

// XGBoost prediction types of XGBoosterPredictFromDMatrix.
enum class PredictType { kValue = 0, kMargin = 1, kContribs = 2, kApproxContribs = 3, kLeaf = 6 };

class Booster {
 public:
  // Trains `rounds` rounds; `params` are XGBoost parameters ("objective", "max_depth", ...).
  // Throws std::runtime_error with XGBoost's message on failure.
  Booster(const Dataset& train, const std::map<std::string, std::string>& params, int rounds,
          const std::vector<std::string>& feature_names = {});
  ~Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;

  std::string SaveJson() const;
  // XGBoost's output for every row of `data` (rows * width values, width depending on type).
  std::vector<float> Predict(const Dataset& data, PredictType type) const;
  BoosterHandle handle() const { return handle_; }

 private:
  BoosterHandle handle_ = nullptr;
};

// Throws std::runtime_error with XGBGetLastError() when rc != 0.
void CheckXgb(int rc);

}  // namespace verdict::model::testing
