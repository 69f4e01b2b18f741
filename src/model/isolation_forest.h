// IsolationForest: an unsupervised anomaly score over the model's feature vector (Liu, Ting and
// Zhou's isolation forest). A row that random axis-aligned splits isolate in few steps is
// unusual; the score is 2^(-mean path length / c(sample size)), in (0, 1], 0.5 for a typical
// row and near 1 for an isolated one. Trained by training/isolation_forest_trainer.h, stored
// as the versioned text format below (anomaly.txt of a model directory). Immutable once built,
// so one instance is shared by all threads freely.
//
// Format "verdict-iforest 1", one record per line, tokens separated by one space:
//   verdict-iforest 1
//   features <n> trees <t> sample <s>
//   then per tree: "tree <node count>" followed by that many node lines, node 0 the root:
//     split <feature> <threshold> <left> <right>   (row goes left when value < threshold;
//                                                    missing values go right)
//     leaf <size>                                  (training rows that reached the leaf)
// Children come after their parent, so every tree is finite and acyclic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::model {

class IsolationForest {
 public:
  struct Node {
    int32_t feature = -1;  // -1: leaf
    float threshold = 0;
    uint32_t left = 0;
    uint32_t right = 0;
    uint32_t size = 0;  // leaf: training rows that reached it
  };
  using Tree = std::vector<Node>;

  // Takes trees already checked (children after parents, features < num_features).
  IsolationForest(size_t num_features, size_t sample_size, std::vector<Tree> trees);

  // Parses the text format; a malformed file is refused with its line number.
  static Result<std::shared_ptr<const IsolationForest>> Parse(std::string_view text);
  static Result<std::shared_ptr<const IsolationForest>> LoadFile(const std::string& path);
  std::string Serialize() const;

  size_t num_features() const { return num_features_; }
  size_t num_trees() const { return trees_.size(); }
  size_t sample_size() const { return sample_size_; }
  const std::vector<Tree>& trees() const { return trees_; }

  // Anomaly score of `row` (num_features() floats, NaN missing), in (0, 1].
  double Score(const float* row) const;
  // The score and, per feature (attribution: num_features() entries), the share of the row's
  // isolation owed to it: each tree's shortening of the path (c(s) − h, when positive) divided
  // among the features its path split on. Sums to the mean shortening; zero for a typical row.
  double Explain(const float* row, double* attribution) const;

  // Average path length of an unsuccessful search in a binary search tree of n rows: the
  // expected depth a leaf of n rows would still have had.
  static double AveragePathLength(double n);

 private:
  double PathLength(size_t t, const float* row, std::vector<int32_t>* path) const;

  size_t num_features_;
  size_t sample_size_;
  double normalizer_;  // AveragePathLength(sample_size)
  std::vector<Tree> trees_;
  // Per tree and node: AveragePathLength(size) for a leaf, computed once so that scoring takes
  // no logarithms.
  std::vector<std::vector<double>> leaf_depth_;
};

}  // namespace verdict::model
