#include "model/top_k.h"

#include <algorithm>
#include <cmath>

namespace verdict::model {

std::vector<FeatureContribution> TopK(const Forest& forest, const float* row,
                                      const double* contributions, size_t k) {
  std::vector<uint32_t> candidates;
  for (uint32_t i = 0; i < forest.num_features(); ++i) {
    if (contributions[i] != 0) candidates.push_back(i);
  }
  const auto larger = [contributions](uint32_t a, uint32_t b) {
    const double abs_a = std::abs(contributions[a]);
    const double abs_b = std::abs(contributions[b]);
    return abs_a != abs_b ? abs_a > abs_b : a < b;
  };
  k = std::min(k, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + k, candidates.end(), larger);
  std::vector<FeatureContribution> top;
  top.reserve(k);
  for (size_t i = 0; i < k; ++i) {
    const uint32_t f = candidates[i];
    top.push_back({forest.feature_names()[f], row[f], contributions[f]});
  }
  return top;
}

}  // namespace verdict::model
