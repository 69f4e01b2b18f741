// TopK: the features that moved a row's score most, by absolute contribution, with their
// names and values. Stateless; thread-safe. Names point into the Forest, which must outlive
// the result.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "model/forest.h"

namespace verdict::model {

struct FeatureContribution {
  std::string_view name;
  float value;          // the row's value (NaN when missing)
  double contribution;  // its share of the margin
};

// `contributions` as ExplainTreeShap or ExplainSaabas wrote them (the bias is not a feature
// and is never selected). Features with a contribution of exactly zero are left out; ties go
// to the lower feature index. At most k entries, largest |contribution| first.
std::vector<FeatureContribution> TopK(const Forest& forest, const float* row,
                                      const double* contributions, size_t k);

}  // namespace verdict::model
