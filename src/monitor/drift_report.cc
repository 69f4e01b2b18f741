#include "monitor/drift_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "monitor/drift_json.h"

namespace verdict::monitor {
namespace {

VariableDrift Compare(const VariableReference& reference, std::span<const double> values,
                      const DriftOptions& options) {
  VariableDrift v;
  v.name = reference.name;
  v.statistics = CompareValues(reference, values);
  for (std::string_view flag : DriftFlags(v.statistics, options)) v.flags.emplace_back(flag);
  v.edges = reference.edges;
  v.reference_counts = reference.counts;
  v.reference_missing = reference.missing;
  v.current_counts.assign(reference.counts.size(), 0);
  for (double x : values) {
    if (!std::isnan(x) && !v.current_counts.empty()) ++v.current_counts[reference.BinOf(x)];
  }
  return v;
}

}  // namespace

size_t DriftReport::DriftedFeatures() const {
  return static_cast<size_t>(
      std::count_if(features.begin(), features.end(), [](const auto& f) { return f.drifted(); }));
}

Result<DriftReportBuilder> DriftReportBuilder::Create(
    ReferenceDistribution reference, std::span<const std::string_view> feature_names) {
  DriftReportBuilder builder;
  VERDICT_ASSIGN_OR_RETURN(builder.source_index_,
                           ResolveReferenceFeatures(reference, feature_names));
  builder.columns_.resize(reference.features.size());
  builder.reference_ = std::move(reference);
  return builder;
}

void DriftReportBuilder::AddRow(std::span<const double> features, double score) {
  for (size_t i = 0; i < source_index_.size(); ++i) {
    const uint32_t s = source_index_[i];
    columns_[i].push_back(s < features.size() ? FeatureAsModelSees(features[s])
                                              : std::numeric_limits<double>::quiet_NaN());
  }
  scores_.push_back(score);
  ++rows_;
}

DriftReport DriftReportBuilder::Build(const DriftOptions& options) const {
  DriftReport report;
  report.reference_rows = reference_.rows;
  report.rows = rows_;
  report.score = Compare(reference_.score, scores_, options);
  bool feature_alert = false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    report.features.push_back(Compare(reference_.features[i], columns_[i], options));
    const DriftStatistics& s = report.features.back().statistics;
    if (s.count >= options.min_count && s.psi >= options.psi_alert) feature_alert = true;
  }
  // As the live monitor: the combined score sets the level only over enough scored values.
  report.drift_score = CombinedDriftScore(report.score.statistics, options.weights);
  report.judged = report.score.statistics.count >= options.min_count;
  report.level = DriftLevel(report.judged ? report.drift_score : 0, feature_alert, options);
  return report;
}

}  // namespace verdict::monitor
