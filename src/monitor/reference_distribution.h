// ReferenceDistribution: what each feature and the model score looked like in the training
// data (quantile bins, missing count, a sorted sample), read from and written to a model
// directory's reference.json; ReferenceBuilder makes one from training rows.
// Plain value types and a single-owner builder; not synchronized.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::monitor {

// The most bins per feature, and the most sample values kept per feature.
inline constexpr size_t kMaxReferenceBins = 20;
inline constexpr size_t kMaxReferenceSample = 4096;
// Bounds on untrusted files, far beyond any real model.
inline constexpr size_t kMaxReferenceFeatures = 4096;
inline constexpr size_t kMaxReferenceNameBytes = 256;
inline constexpr size_t kMaxReferenceBytes = size_t{256} << 20;
inline constexpr std::string_view kReferenceSchema = "reference-1";

// One variable's reference. `edges` holds K+1 bin boundaries (1 <= K <= kMaxReferenceBins),
// strictly increasing, except for a constant variable, whose edges are [v, v] (K = 1).
// Bin i is [edges[i], edges[i+1]), the last bin is closed; values below edges[0] count in
// the first bin and values above edges[K] in the last. NaN is missing, never binned.
struct VariableReference {
  std::string name;
  uint64_t missing = 0;
  std::vector<double> edges;
  std::vector<uint64_t> counts;  // K entries: non-missing values per bin
  std::vector<double> sample;    // sorted, finite, at most kMaxReferenceSample values

  size_t bins() const { return counts.size(); }
  uint64_t NonMissing() const;
  // The bin a finite value falls in, by the rule above.
  size_t BinOf(double value) const;
};

// A feature value as the model sees it (the forest evaluates floats) and as `verdict train`
// records it in the reference: rounded to float. Drift compares current features so, or a
// value whose float rounds up onto a quantile edge would land one bin below where training
// put it. NaN stays NaN; beyond the float range becomes ±inf.
inline double FeatureAsModelSees(double value) {
  return static_cast<double>(static_cast<float>(value));
}

struct ReferenceDistribution {
  uint64_t rows = 0;
  // The rows are those whose sender the engine had known for at least this many days (the
  // live watch's min_account_history_days, so that both sides count alike); 0: every row.
  double min_account_history_days = 0;
  std::vector<VariableReference> features;
  VariableReference score;  // name "score"

  // The feature of that name, or nullptr.
  const VariableReference* Find(std::string_view name) const;
};

// Compact JSON in the reference-1 format (docs/drift.md).
std::string ReferenceToJson(const ReferenceDistribution& reference);

// Strict parser for untrusted text: unknown, duplicate and missing keys, wrong types,
// non-finite or unsorted numbers, counts that do not add up to `rows`, duplicate feature
// names and oversized arrays are refused; the error names the field
// ("features[3].edges[2]").
Result<ReferenceDistribution> ParseReferenceJson(std::string_view json);

// For each reference feature, its index in `feature_names` (the engine's schema); a reference
// feature the engine does not compute is an error naming it ("features[3].name").
Result<std::vector<uint32_t>> ResolveReferenceFeatures(
    const ReferenceDistribution& reference, std::span<const std::string_view> feature_names);

// Reads and parses a file (at most kMaxReferenceBytes).
Result<ReferenceDistribution> ReadReferenceFile(const std::string& path);
// Writes ReferenceToJson to `path` (through a temporary file renamed into place).
Status WriteReferenceFile(const ReferenceDistribution& reference, const std::string& path);

// Builds the reference for one variable from its values (NaN = missing): edges at the
// quantiles i/K of the non-missing values (order statistics, deduplicated); when the values
// take at most K distinct values, one bin per distinct value (edges at the midpoints). The
// sample is every value when there are at most kMaxReferenceSample, else the evenly spaced
// order statistics sorted[round(j (n-1) / (S-1))], which is deterministic.
VariableReference BuildVariableReference(std::string name, std::vector<double> values,
                                         size_t max_bins = kMaxReferenceBins);

// Collects training rows, row-wise or column-wise, then builds the reference. Keeps every
// value (8 bytes per feature per row) until Build.
class ReferenceBuilder {
 public:
  explicit ReferenceBuilder(std::vector<std::string> feature_names,
                            size_t max_bins = kMaxReferenceBins);

  // One row: a value per feature (NaN = missing) and the model's score for the row.
  Status AddRow(std::span<const double> features, double score);
  // Appends values to one feature's column, or to the score column.
  Status AddFeatureColumn(size_t feature, std::span<const double> values);
  Status AddScoreColumn(std::span<const double> scores);

  // Refuses columns of different lengths (naming the first that differs) and duplicate or
  // empty feature names.
  Result<ReferenceDistribution> Build() const;

 private:
  std::vector<std::string> names_;
  size_t max_bins_;
  std::vector<std::vector<double>> columns_;
  std::vector<double> scores_;
};

}  // namespace verdict::monitor
