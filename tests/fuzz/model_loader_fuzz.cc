// libFuzzer target: the XGBoost JSON model loader must never crash, hang or leak on any input,
// and whatever it accepts must score and explain rows without faults and with SHAP values that
// sum to the margin.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "model/forest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto loaded = verdict::model::Forest::LoadXGBoostJson(input);
  if (!loaded.ok()) return 0;
  const verdict::model::Forest& forest = **loaded;
  // Models with huge feature counts are valid but make each row costly; score those rarely.
  if (forest.num_features() > 4096 || forest.num_nodes() > 100000) return 0;
  const size_t n = forest.num_features();
  // rows.data() + offset, not &rows[offset]: a model may have no features (rows is empty).
  std::vector<float> rows(3 * n);
  for (size_t i = 0; i < n; ++i) {
    rows[i] = static_cast<float>(i % 7) - 3.0f;
    rows[n + i] = NAN;
    rows[2 * n + i] = i % 2 ? INFINITY : -0.0f;
  }
  std::vector<float> margins(3);
  forest.PredictMarginBatch(rows.data(), 3, margins.data());
  // Float summation of large leaves may cancel: allow for that, relative to their size.
  double scale = 1;
  for (float leaf : forest.leaf_values()) scale += std::abs(leaf);
  std::vector<double> phi(n + 1);
  for (size_t r = 0; r < 3; ++r) {
    const float margin = forest.PredictMargin(rows.data() + r * n);
    if (!(margin == margins[r]) && !(std::isnan(margin) && std::isnan(margins[r]))) {
      __builtin_trap();
    }
    forest.ExplainTreeShap(rows.data() + r * n, phi.data());
    double sum = 0;
    double size = scale;
    for (double c : phi) {
      sum += c;
      size += std::abs(c);
    }
    // The SHAP sum must reproduce the margin (when both are finite).
    if (std::isfinite(margin) && std::isfinite(size) && std::abs(sum - margin) > 1e-4 * size) {
      __builtin_trap();
    }
    forest.ExplainSaabas(rows.data() + r * n, phi.data());
  }
  return 0;
}
