#include "common/metrics.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(MetricsTest, RendersPrometheusText) {
  MetricsRegistry registry;
  registry
      .GetCounter("verdict_api_requests_total", "Requests", {{"route", "/a"}, {"status", "200"}})
      ->Increment(3);
  registry
      .GetCounter("verdict_api_requests_total", "Requests", {{"route", "/a"}, {"status", "200"}})
      ->Increment();
  registry.GetGauge("verdict_api_open_connections", "Open")->Set(2);
  Histogram* h =
      registry.GetHistogram("verdict_stage_seconds", "Stage", {0.001, 0.01}, {{"stage", "q\"x"}});
  h->Observe(0.0005);
  h->Observe(0.001);  // on a bound: counts in that bucket (le is inclusive)
  h->Observe(0.5);
  const std::string text = registry.RenderPrometheus();
  EXPECT_NE(text.find("# TYPE verdict_api_requests_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("verdict_api_requests_total{route=\"/a\",status=\"200\"} 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("verdict_api_open_connections 2\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE verdict_stage_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("verdict_stage_seconds_bucket{stage=\"q\\\"x\",le=\"0.001\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("verdict_stage_seconds_bucket{stage=\"q\\\"x\",le=\"0.01\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("verdict_stage_seconds_bucket{stage=\"q\\\"x\",le=\"+Inf\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("verdict_stage_seconds_count{stage=\"q\\\"x\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("verdict_stage_seconds_sum{stage=\"q\\\"x\"} 0.5015\n"), std::string::npos);
}

// What one tenant's key may read (I7): its own series and those of no tenant, whatever the
// other labels and however the names are spelled.
TEST(MetricsTest, ATenantSeesItsOwnSeriesAndTheEngineWideOnes) {
  MetricsRegistry registry;
  registry.GetCounter("d_total", "D", {{"outcome", "allow"}, {"tenant", "alpha"}})->Increment(1);
  registry.GetCounter("d_total", "D", {{"outcome", "allow"}, {"tenant", "beta"}})->Increment(2);
  registry.GetCounter("d_total", "D", {{"tenant", "alpha,x"}})->Increment(3);
  registry.GetCounter("d_total", "D", {{"tenant", "al\"pha"}})->Increment(4);
  registry.GetCounter("d_total", "D", {{"subtenant", "beta"}})->Increment(5);
  registry.GetCounter("d_total", "D", {{"note", "x\",tenant=\"beta"}})->Increment(6);
  registry.GetGauge("g", "G")->Set(7);
  registry.GetHistogram("h_seconds", "H", {1.0}, {{"tenant", "beta"}})->Observe(0.5);

  const std::string alpha = registry.RenderPrometheus(std::string("alpha"));
  EXPECT_NE(alpha.find("d_total{outcome=\"allow\",tenant=\"alpha\"} 1\n"), std::string::npos);
  EXPECT_EQ(alpha.find("} 2\n"), std::string::npos) << alpha;  // beta's
  EXPECT_EQ(alpha.find("} 3\n"), std::string::npos) << alpha;  // "alpha,x" is another tenant
  EXPECT_EQ(alpha.find("} 4\n"), std::string::npos) << alpha;
  EXPECT_NE(alpha.find("d_total{subtenant=\"beta\"} 5\n"), std::string::npos) << alpha;
  EXPECT_NE(alpha.find("} 6\n"), std::string::npos) << alpha;  // a value, not a tenant label
  EXPECT_NE(alpha.find("g 7\n"), std::string::npos);
  EXPECT_EQ(alpha.find("h_seconds_count"), std::string::npos);

  const std::string quoted = registry.RenderPrometheus(std::string("al\"pha"));
  EXPECT_NE(quoted.find("} 4\n"), std::string::npos) << quoted;
  EXPECT_EQ(quoted.find("} 1\n"), std::string::npos) << quoted;

  const std::string all = registry.RenderPrometheus();
  EXPECT_NE(all.find("tenant=\"beta\"} 2\n"), std::string::npos);
  EXPECT_NE(all.find("h_seconds_count{tenant=\"beta\"} 1\n"), std::string::npos);
}

TEST(MetricsTest, SameNameAndLabelsIsTheSameMetric) {
  MetricsRegistry registry;
  Counter* a = registry.GetCounter("c_total", "h", {{"k", "v"}});
  Counter* b = registry.GetCounter("c_total", "h", {{"k", "v"}});
  Counter* c = registry.GetCounter("c_total", "h", {{"k", "w"}});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

}  // namespace
}  // namespace verdict
