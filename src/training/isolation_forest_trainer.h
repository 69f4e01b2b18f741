// Trains an isolation forest (model/isolation_forest.h) on feature rows: each tree on its own
// random sample of rows, split on a random feature with spread at a threshold drawn uniformly
// between that feature's minimum and maximum in the node, to a depth of ceil(log2(sample)).
// Labels play no part. Deterministic for a given seed and input (its own generator, not the
// standard library's distributions). Pure function; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "model/isolation_forest.h"

namespace verdict::training {

struct IsolationForestParams {
  size_t trees = 100;
  size_t sample_size = 256;
  uint64_t seed = 1;
  std::vector<size_t> excluded_features;  // never split on (indices)
};

// `rows`: row-major, `num_features` floats apart (NaN missing); `row_indices`: the rows it may
// sample. Fewer rows than sample_size: every tree takes them all.
std::shared_ptr<const model::IsolationForest> TrainIsolationForest(
    std::span<const float> rows, size_t num_features, std::span<const size_t> row_indices,
    const IsolationForestParams& params);

}  // namespace verdict::training
