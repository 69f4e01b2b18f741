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
