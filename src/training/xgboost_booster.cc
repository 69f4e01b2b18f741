#include "training/xgboost_booster.h"

#include <xgboost/c_api.h>

#include <limits>

namespace verdict::training {
namespace {

Status XgbError(const char* what) {
  return Internal(std::string("xgboost ") + what + ": " + XGBGetLastError());
}

// Frees the handles on every path out.
struct Handles {
  DMatrixHandle matrix = nullptr;
  BoosterHandle booster = nullptr;
  ~Handles() {
    if (booster != nullptr) XGBoosterFree(booster);
    if (matrix != nullptr) XGDMatrixFree(matrix);
  }
};

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string XgboostVersion() {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

Result<std::string> TrainBooster(std::span<const float> x, std::span<const float> labels,
                                 const std::vector<std::string>& feature_names,
                                 const BoosterParams& params,
                                 const std::function<void(int)>& on_round) {
  const size_t cols = feature_names.size();
  const size_t rows = labels.size();
  if (cols == 0 || rows == 0 || x.size() != rows * cols) {
    return InvalidArgument("training matrix is empty or its shape does not match the labels");
  }
  size_t positives = 0;
  for (float y : labels) positives += y > 0.5f;
  if (positives == 0 || positives == rows) {
    return InvalidArgument("the training part needs both laundering and normal rows (has " +
                               std::to_string(positives) + " positives of " + std::to_string(rows) +
                               ")",
                           "input");
  }
  double spw = params.scale_pos_weight;
  if (spw < 0) spw = static_cast<double>(rows - positives) / static_cast<double>(positives);

  Handles h;
  if (XGDMatrixCreateFromMat(x.data(), rows, cols, std::numeric_limits<float>::quiet_NaN(),
                             &h.matrix) != 0) {
    return XgbError("DMatrix");
  }
  if (XGDMatrixSetFloatInfo(h.matrix, "label", labels.data(), rows) != 0) {
    return XgbError("labels");
  }
  std::vector<const char*> names;
  for (const std::string& n : feature_names) names.push_back(n.c_str());
  if (XGDMatrixSetStrFeatureInfo(h.matrix, "feature_name", names.data(), names.size()) != 0) {
    return XgbError("feature names");
  }
  if (XGBoosterCreate(&h.matrix, 1, &h.booster) != 0) return XgbError("booster");
  const std::pair<std::string, std::string> settings[] = {
      {"objective", "binary:logistic"},
      {"eval_metric", "aucpr"},
      {"tree_method", params.tree_method},
      {"max_depth", std::to_string(params.max_depth)},
      {"eta", Num(params.eta)},
      {"seed", std::to_string(params.seed)},
      {"nthread", std::to_string(params.threads)},
      {"scale_pos_weight", Num(spw)},
      {"min_child_weight", Num(params.min_child_weight)},
      {"subsample", Num(params.subsample)},
      {"colsample_bytree", Num(params.colsample_bytree)},
      {"lambda", Num(params.lambda)},
      {"verbosity", "1"},
  };
  for (const auto& [key, value] : settings) {
    if (XGBoosterSetParam(h.booster, key.c_str(), value.c_str()) != 0) {
      return XgbError(("parameter " + key).c_str());
    }
  }
  for (int i = 0; i < params.rounds; ++i) {
    if (XGBoosterUpdateOneIter(h.booster, i, h.matrix) != 0) return XgbError("training round");
    if (on_round) on_round(i);
  }
  // The C API leaves the booster's own feature names unset; the model file must carry them
  // (the engine maps features by name).
  if (XGBoosterSetStrFeatureInfo(h.booster, "feature_name", names.data(), names.size()) != 0) {
    return XgbError("booster feature names");
  }
  bst_ulong length = 0;
  const char* bytes = nullptr;
  if (XGBoosterSaveModelToBuffer(h.booster, "{\"format\":\"json\"}", &length, &bytes) != 0) {
    return XgbError("save");
  }
  return std::string(bytes, length);
}

}  // namespace verdict::training
