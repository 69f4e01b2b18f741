#include "monitor/drift_html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace verdict::monitor {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Occurrences(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

VariableDrift Variable(std::string name, std::vector<std::string> flags) {
  VariableDrift v;
  v.name = std::move(name);
  v.flags = std::move(flags);
  v.edges = {0, 1, 2, 3};
  v.reference_counts = {50, 30, 20};
  v.current_counts = {10, 30, 60};
  v.statistics.count = 100;
  v.statistics.psi = v.flags.empty() ? 0.01 : 0.8;
  return v;
}

DriftReport Report() {
  DriftReport r;
  r.model_name = "aml";
  r.model_version = "4";
  r.input = "/data/<today>.csv";
  r.rows = 100;
  r.reference_rows = 1000;
  r.level = 3;
  r.drift_score = 0.42;
  r.judged = true;
  r.score = Variable("score", {"psi_alert"});
  r.features.push_back(Variable("amount", {}));
  r.features.push_back(Variable("sender_out_count_24h", {"psi_alert", "ks"}));
  r.features.push_back(Variable("x<y&\"z\"", {"js"}));
  return r;
}

TEST(DriftHtmlTest, OneSelfContainedPageWithATableRowPerVariable) {
  const std::string html = DriftReportToHtml(Report(), DriftOptions{}, "2026-12-03T06:00:00Z");
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("<style>"));
  // Nothing that runs or loads from elsewhere.
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("href=")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_EQ(Occurrences(html, "<tr class=\"score"), 1u);
  EXPECT_EQ(Occurrences(html, "<tr class=\"feature"), 3u);
  EXPECT_EQ(Occurrences(html, "class=\"feature drift\""), 2u);
  EXPECT_THAT(html, HasSubstr("Level 3"));
  EXPECT_THAT(html, HasSubstr("2026-12-03T06:00:00Z"));
  EXPECT_THAT(html, HasSubstr("2 of 3 features drifted"));
}

TEST(DriftHtmlTest, AChartForTheScoreAndEachDriftedFeature) {
  const std::string html = DriftReportToHtml(Report(), DriftOptions{}, "");
  EXPECT_EQ(Occurrences(html, "<svg "), 3u);  // score + 2 drifted features, not "amount"
  EXPECT_THAT(html, HasSubstr("<h3>sender_out_count_24h</h3>"));
  EXPECT_THAT(html, Not(HasSubstr("<h3>amount</h3>")));
  // Drifted features come first in the table.
  EXPECT_LT(html.find("<td>sender_out_count_24h</td>"), html.find("<td>amount</td>"));
}

TEST(DriftHtmlTest, EscapesNamesAndInput) {
  const std::string html = DriftReportToHtml(Report(), DriftOptions{}, "");
  EXPECT_THAT(html, HasSubstr("x&lt;y&amp;&quot;z&quot;"));
  EXPECT_THAT(html, Not(HasSubstr("x<y")));
  EXPECT_THAT(html, HasSubstr("/data/&lt;today&gt;.csv"));
  EXPECT_EQ(HtmlEscape("a'b"), "a&#39;b");
}

TEST(DriftHtmlTest, HistogramHasTwoBarsPerBin) {
  const VariableDrift v = Variable("amount", {});
  const std::string svg = HistogramSvg(v);
  EXPECT_EQ(Occurrences(svg, "<rect "), 6u);
  EXPECT_THAT(svg, HasSubstr("reference 50.0%"));
  EXPECT_THAT(svg, HasSubstr("current 60.0%"));
  VariableDrift empty;
  EXPECT_EQ(HistogramSvg(empty), "");
}

}  // namespace
}  // namespace verdict::monitor
