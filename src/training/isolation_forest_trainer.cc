#include "training/isolation_forest_trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace verdict::training {
namespace {

// SplitMix64: small, fast, and the same sequence on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

struct Range {
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();
};

class TreeBuilder {
 public:
  TreeBuilder(std::span<const float> rows, size_t num_features, int max_depth,
              const std::vector<bool>& usable, SplitMix64& rng)
      : rows_(rows),
        num_features_(num_features),
        max_depth_(max_depth),
        usable_(usable),
        rng_(rng) {}

  // Builds the subtree over sample[begin, end) at `depth`; returns its node index.
  uint32_t Build(std::vector<size_t>& sample, size_t begin, size_t end, int depth) {
    const uint32_t index = static_cast<uint32_t>(tree_.size());
    tree_.emplace_back();
    const size_t size = end - begin;
    std::vector<size_t> candidates;
    std::vector<Range> ranges(num_features_);
    if (depth < max_depth_ && size > 1) {
      for (size_t k = begin; k < end; ++k) {
        const float* row = &rows_[sample[k] * num_features_];
        for (size_t f = 0; f < num_features_; ++f) {
          if (std::isnan(row[f])) continue;
          ranges[f].min = std::min(ranges[f].min, row[f]);
          ranges[f].max = std::max(ranges[f].max, row[f]);
        }
      }
      for (size_t f = 0; f < num_features_; ++f) {
        if (usable_[f] && ranges[f].min < ranges[f].max) candidates.push_back(f);
      }
    }
    if (candidates.empty()) {
      tree_[index].size = static_cast<uint32_t>(size);
      return index;
    }
    const size_t f = candidates[rng_.Below(candidates.size())];
    const Range r = ranges[f];
    float threshold =
        static_cast<float>(r.min + rng_.Unit() * (static_cast<double>(r.max) - r.min));
    // At least the minimum goes left, so both sides are non-empty.
    if (!(threshold > r.min)) threshold = std::nextafter(r.min, r.max);
    auto mid = std::partition(sample.begin() + static_cast<std::ptrdiff_t>(begin),
                              sample.begin() + static_cast<std::ptrdiff_t>(end),
                              [&](size_t i) { return rows_[i * num_features_ + f] < threshold; });
    const size_t split = static_cast<size_t>(mid - sample.begin());
    const uint32_t left = Build(sample, begin, split, depth + 1);
    const uint32_t right = Build(sample, split, end, depth + 1);
    model::IsolationForest::Node& node = tree_[index];
    node.feature = static_cast<int32_t>(f);
    node.threshold = threshold;
    node.left = left;
    node.right = right;
    return index;
  }

  model::IsolationForest::Tree Take() { return std::move(tree_); }

 private:
  std::span<const float> rows_;
  size_t num_features_;
  int max_depth_;
  const std::vector<bool>& usable_;
  SplitMix64& rng_;
  model::IsolationForest::Tree tree_;
};

}  // namespace

std::shared_ptr<const model::IsolationForest> TrainIsolationForest(
    std::span<const float> rows, size_t num_features, std::span<const size_t> row_indices,
    const IsolationForestParams& params) {
  SplitMix64 rng(params.seed);
  const size_t sample_size = std::max<size_t>(2, std::min(params.sample_size, row_indices.size()));
  const int max_depth = static_cast<int>(std::ceil(std::log2(static_cast<double>(sample_size))));
  std::vector<model::IsolationForest::Tree> trees;
  std::vector<size_t> pool(row_indices.begin(), row_indices.end());
  std::vector<size_t> sample;
  std::vector<bool> usable(num_features, true);
  for (size_t f : params.excluded_features) {
    if (f < num_features) usable[f] = false;
  }
  for (size_t t = 0; t < params.trees; ++t) {
    sample.clear();
    if (pool.size() <= sample_size) {
      sample = pool;
    } else {
      // A partial Fisher-Yates shuffle: the first sample_size entries are a uniform sample.
      for (size_t k = 0; k < sample_size; ++k) {
        std::swap(pool[k], pool[k + rng.Below(pool.size() - k)]);
        sample.push_back(pool[k]);
      }
    }
    TreeBuilder builder(rows, num_features, max_depth, usable, rng);
    builder.Build(sample, 0, sample.size(), 0);
    trees.push_back(builder.Take());
  }
  return std::make_shared<const model::IsolationForest>(num_features, sample_size,
                                                        std::move(trees));
}

}  // namespace verdict::training
