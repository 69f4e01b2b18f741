// TrainBooster: trains a binary:logistic XGBoost model through the XGBoost C API and returns
// its JSON (Booster.save_model format, which src/model loads). XGBoost errors become a Status;
// nothing throws. Thread-compatible (each call owns its DMatrix and Booster).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace verdict::training {

struct BoosterParams {
  int rounds = 300;
  int max_depth = 6;
  double eta = 0.1;
  int threads = 0;  // 0 = XGBoost's default (all cores)
  uint64_t seed = 42;
  // Weight of positive rows; < 0 = auto: negatives / positives (class imbalance).
  double scale_pos_weight = -1;
  double min_child_weight = 1;
  double subsample = 1;  // < 1 samples rows with `seed` (still deterministic)
  double colsample_bytree = 1;
  double lambda = 1;
  std::string tree_method = "hist";
};

// Row-major `rows` × feature_names.size() floats (NaN = missing) and 0/1 labels.
// `on_round(i)` is called after each boosting round.
Result<std::string> TrainBooster(std::span<const float> x, std::span<const float> labels,
                                 const std::vector<std::string>& feature_names,
                                 const BoosterParams& params,
                                 const std::function<void(int)>& on_round = {});

// XGBoost's version as "major.minor.patch".
std::string XgboostVersion();

}  // namespace verdict::training
