#include "monitor/drift_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace verdict::monitor {
namespace {

// Numbers as a reader wants them: 4 significant digits.
std::string Num(double v) {
  if (std::isnan(v)) return "–";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100 * fraction);
  return buf;
}

std::vector<double> Proportions(const std::vector<uint64_t>& counts) {
  const double total =
      static_cast<double>(std::accumulate(counts.begin(), counts.end(), uint64_t{0}));
  std::vector<double> p(counts.size(), 0);
  if (total > 0) {
    for (size_t i = 0; i < counts.size(); ++i) p[i] = static_cast<double>(counts[i]) / total;
  }
  return p;
}

double MissingShare(uint64_t missing, const std::vector<uint64_t>& counts) {
  const uint64_t total = std::accumulate(counts.begin(), counts.end(), missing);
  return total > 0 ? static_cast<double>(missing) / static_cast<double>(total) : 0;
}

constexpr const char* kLevelText[] = {"no drift", "L1: logged and snapshot", "L2: retrain hook",
                                      "L3: model frozen"};

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#1d2330;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:#5a6272;margin:0 0 16px}
.level{display:inline-block;padding:4px 10px;border-radius:12px;font-weight:600;color:#fff}
.l0{background:#2f8f4e}.l1{background:#c79a16}.l2{background:#d9681c}.l3{background:#c0392b}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid #e3e6ec;text-align:right;white-space:nowrap}
th:first-child,td:first-child,td.flags{text-align:left}
th{background:#f4f6f9;position:sticky;top:0}
tr.drift td{background:#fff3ec}tr.score td{font-weight:600}
.chart{display:inline-block;vertical-align:top;margin:8px 16px 16px 0}
.chart h3{font-size:14px;margin:0 0 2px}.chart p{margin:0;color:#5a6272;font-size:12px}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px}
svg text{font:10px system-ui,sans-serif;fill:#5a6272}
)";

void Row(std::string& out, const VariableDrift& v, const char* css_class) {
  const DriftStatistics& s = v.statistics;
  out += "<tr class=\"";
  out += css_class;
  if (v.drifted()) out += " drift";
  out += "\"><td>" + HtmlEscape(v.name) + "</td><td>" + std::to_string(s.count) + "</td><td>" +
         std::to_string(s.missing) + "</td><td>" + Num(s.psi) + "</td><td>" + Num(s.kl) +
         "</td><td>" + Num(s.js) + "</td><td>" + Num(s.ks) + "</td><td>" + Num(s.ks_p_value) +
         "</td><td>" + Num(s.wasserstein) + "</td><td class=\"flags\">";
  for (size_t i = 0; i < v.flags.size(); ++i) {
    if (i > 0) out += ", ";
    out += HtmlEscape(v.flags[i]);
  }
  out += "</td></tr>\n";
}

void Chart(std::string& out, const VariableDrift& v) {
  const DriftStatistics& s = v.statistics;
  out += "<div class=\"chart\"><h3>" + HtmlEscape(v.name) + "</h3><p>PSI " + Num(s.psi) + " · JS " +
         Num(s.js) + " · KS " + Num(s.ks) + " (p " + Num(s.ks_p_value) + ") · W1 " +
         Num(s.wasserstein) + "</p><p>missing: reference " +
         Percent(MissingShare(v.reference_missing, v.reference_counts)) + ", current " +
         Percent(MissingShare(s.missing, v.current_counts)) + "</p>\n";
  out += HistogramSvg(v);
  out += "</div>\n";
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string HistogramSvg(const VariableDrift& v) {
  const size_t bins = v.reference_counts.size();
  if (bins == 0 || v.current_counts.size() != bins || v.edges.size() != bins + 1) return {};
  constexpr double kWidth = 520, kHeight = 230, kLeft = 44, kRight = 8, kTop = 10, kBottom = 64;
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const std::vector<double> ref = Proportions(v.reference_counts);
  const std::vector<double> cur = Proportions(v.current_counts);
  double top = 0;
  for (size_t i = 0; i < bins; ++i) top = std::max({top, ref[i], cur[i]});
  // Round the axis up to the next 10%, so gridlines fall on readable values.
  top = std::max(0.1, std::ceil(top * 10 - 1e-9) / 10);
  const double slot = plot_w / static_cast<double>(bins);
  auto y = [&](double p) { return kTop + plot_h * (1 - p / top); };
  char buf[256];
  std::string out;
  std::snprintf(buf, sizeof(buf),
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" role=\"img\">",
                kWidth, kHeight, kWidth, kHeight);
  out += buf;
  out += "<title>" + HtmlEscape(v.name) + ": reference vs current</title>";
  for (int g = 0; g <= 4; ++g) {
    const double p = top * g / 4;
    std::snprintf(buf, sizeof(buf),
                  "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e6ec\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f%%</text>",
                  kLeft, kWidth - kRight, y(p), y(p), kLeft - 4, y(p) + 3, 100 * p);
    out += buf;
  }
  for (size_t i = 0; i < bins; ++i) {
    const double x0 = kLeft + slot * static_cast<double>(i);
    const double bar = slot * 0.4;
    const std::string range = Num(v.edges[i]) + " – " + Num(v.edges[i + 1]);
    std::snprintf(buf, sizeof(buf),
                  "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#9aa3b2\">",
                  x0 + slot * 0.1, y(ref[i]), bar, kTop + plot_h - y(ref[i]));
    out += buf;
    out += "<title>" + HtmlEscape(range) + ": reference " + Percent(ref[i]) + "</title></rect>";
    std::snprintf(buf, sizeof(buf),
                  "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#d9681c\">",
                  x0 + slot * 0.5, y(cur[i]), bar, kTop + plot_h - y(cur[i]));
    out += buf;
    out += "<title>" + HtmlEscape(range) + ": current " + Percent(cur[i]) + "</title></rect>";
  }
  // Edge labels at the slot boundaries, thinned so that they do not overlap.
  const size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(14.0 / slot)));
  for (size_t i = 0; i <= bins; i += every) {
    const double x = kLeft + slot * static_cast<double>(i);
    std::snprintf(buf, sizeof(buf),
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                  "transform=\"rotate(-45 %.1f %.1f)\">",
                  x, kTop + plot_h + 12, x, kTop + plot_h + 12);
    out += buf;
    out += HtmlEscape(Num(v.edges[i])) + "</text>";
  }
  std::snprintf(buf, sizeof(buf),
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#5a6272\"/>", kLeft,
                kWidth - kRight, kTop + plot_h, kTop + plot_h);
  out += buf;
  out += "</svg>\n";
  return out;
}

std::string DriftReportToHtml(const DriftReport& report, const DriftOptions& options,
                              std::string_view generated_at) {
  const int level = std::clamp(report.level, 0, 3);
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  out += "<title>Drift report: " + HtmlEscape(report.model_name) + " v" +
         HtmlEscape(report.model_version) + "</title><style>";
  out += kStyle;
  out += "</style></head><body>\n";
  out += "<h1>Drift report: " + HtmlEscape(report.model_name) + " v" +
         HtmlEscape(report.model_version) + "</h1>\n<p class=\"meta\">" + HtmlEscape(report.input) +
         " · " + std::to_string(report.rows) + " rows against a reference of " +
         std::to_string(report.reference_rows) + " rows";
  if (!generated_at.empty()) out += " · generated " + HtmlEscape(generated_at);
  out += "</p>\n";

  out += "<p><span class=\"level l" + std::to_string(level) + "\">Level " + std::to_string(level) +
         " – " + kLevelText[level] + "</span> combined drift score <b>" + Num(report.drift_score) +
         "</b> (" + Num(options.weights.kl) + "·KL + " + Num(options.weights.js) + "·JS + " +
         Num(options.weights.psi) + "·PSI on the score; L1 ≥ " + Num(options.l1) + ", L2 ≥ " +
         Num(options.l2) + ", L3 &gt; " + Num(options.l3) + ")";
  if (!report.judged) {
    out += " – fewer than " + std::to_string(options.min_count) +
           " scored rows, so the score does not set the level";
  }
  out += ". " + std::to_string(report.DriftedFeatures()) + " of " +
         std::to_string(report.features.size()) + " features drifted.</p>\n";

  out += "<h2>Summary</h2>\n<p class=\"meta\">Flags: psi_warn ≥ " + Num(options.psi_warn) +
         ", psi_alert ≥ " + Num(options.psi_alert) + ", ks: p &lt; " + Num(options.ks_p_value) +
         ", wasserstein ≥ " + Num(options.wasserstein) + " (normalized by the reference IQR), " +
         "js ≥ " + Num(options.js) + "; only for variables with at least " +
         std::to_string(options.min_count) +
         " values. Drifted features first (by PSI), then the rest in schema order.</p>\n";
  out +=
      "<table><thead><tr><th>variable</th><th>count</th><th>missing</th><th>PSI</th>"
      "<th>KL</th><th>JS</th><th>KS</th><th>KS p-value</th><th>W1 (norm.)</th>"
      "<th>flags</th></tr></thead><tbody>\n";
  Row(out, report.score, "score");
  std::vector<const VariableDrift*> order;
  for (const VariableDrift& f : report.features) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(), [](const VariableDrift* a, const VariableDrift* b) {
    if (a->drifted() != b->drifted()) return a->drifted();
    return a->drifted() && a->statistics.psi > b->statistics.psi;
  });
  for (const VariableDrift* f : order) Row(out, *f, "feature");
  out += "</tbody></table>\n";

  out +=
      "<h2>Distributions</h2>\n<p class=\"legend\">Share of non-missing values per reference "
      "bin:<span style=\"background:#9aa3b2\"></span>reference"
      "<span style=\"background:#d9681c\"></span>current. The score, then every drifted "
      "feature.</p>\n";
  Chart(out, report.score);
  for (const VariableDrift* f : order) {
    if (f->drifted()) Chart(out, *f);
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace verdict::monitor
