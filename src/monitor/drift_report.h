// Offline drift (`verdict drift report`): the live monitor's statistics computed once over a
// whole data set against a model's reference, with exact KS and Wasserstein-1 on the raw
// values. DriftReportBuilder is single-owner (not synchronized); DriftReport is a value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "monitor/drift_options.h"
#include "monitor/drift_statistics.h"
#include "monitor/reference_distribution.h"

namespace verdict::monitor {

// One variable (a feature or the score) compared with its reference.
struct VariableDrift {
  std::string name;
  DriftStatistics statistics;
  std::vector<std::string> flags;  // DriftFlags: "psi_alert", "ks", ...; empty = no drift
  // Both histograms on the reference's bins, for charts.
  std::vector<double> edges;
  std::vector<uint64_t> reference_counts;
  uint64_t reference_missing = 0;
  std::vector<uint64_t> current_counts;

  bool drifted() const { return !flags.empty(); }
};

struct DriftReport {
  // Filled in by the caller, shown in the JSON and HTML forms.
  std::string model_name;
  std::string model_version;
  std::string input;
  uint64_t reference_rows = 0;
  uint64_t rows = 0;       // rows observed
  bool judged = false;     // the score has at least min_count values: the level counts
  double drift_score = 0;  // combined score on the score distribution
  int level = 0;           // as the live monitor would set it (0..3)
  VariableDrift score;
  std::vector<VariableDrift> features;  // in the reference's order

  size_t DriftedFeatures() const;
};

class DriftReportBuilder {
 public:
  // `feature_names` is the order of the vectors AddRow gets; each reference feature is
  // matched by name (a reference feature missing from it is an error naming it).
  static Result<DriftReportBuilder> Create(ReferenceDistribution reference,
                                           std::span<const std::string_view> feature_names);

  // One row: the full feature vector (NaN = missing) and the model's score (NaN: not scored).
  // Features are compared as the model sees them (FeatureAsModelSees), like the live monitor.
  // Keeps every tracked value (8 bytes per feature per row) until Build.
  void AddRow(std::span<const double> features, double score);

  uint64_t rows() const { return rows_; }
  const ReferenceDistribution& reference() const { return reference_; }

  // Statistics, flags and level with the live monitor's thresholds and rules.
  DriftReport Build(const DriftOptions& options) const;

 private:
  DriftReportBuilder() = default;

  ReferenceDistribution reference_;
  std::vector<uint32_t> source_index_;  // feature vector index of reference feature i
  std::vector<std::vector<double>> columns_;
  std::vector<double> scores_;
  uint64_t rows_ = 0;
};

}  // namespace verdict::monitor
