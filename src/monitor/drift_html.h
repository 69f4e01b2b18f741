// The HTML form of an offline drift report: one self-contained page (inline CSS and inline
// SVG, no scripts, nothing loaded from elsewhere) with a summary table of the score and every
// feature and a reference-vs-current histogram per drifted variable. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "monitor/drift_options.h"
#include "monitor/drift_report.h"

namespace verdict::monitor {

// `generated_at` is shown as given (an RFC 3339 time, or empty to leave it out).
std::string DriftReportToHtml(const DriftReport& report, const DriftOptions& options,
                              std::string_view generated_at);

// Text escaped for HTML element content and quoted attribute values.
std::string HtmlEscape(std::string_view text);

// An inline SVG bar chart of two histograms on the same bins (proportions of each side's
// non-missing values), reference in grey and current in colour, with the bin edges on the
// x axis. Empty when there are no bins.
std::string HistogramSvg(const VariableDrift& variable);

}  // namespace verdict::monitor
