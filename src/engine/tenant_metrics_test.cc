#include "engine/tenant_metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace verdict {
namespace {

TEST(TenantMetricsTest, EachTenantCountsItsOwnDecisions) {
  MetricsRegistry registry;
  TenantMetrics metrics(registry);
  const TenantMetrics::Series& alpha = metrics.For("alpha");
  EXPECT_EQ(&metrics.For("alpha"), &alpha);  // registered once, then found
  const TenantMetrics::Series& beta = metrics.For("beta");
  alpha.decisions[static_cast<int>(Outcome::kBlock)][static_cast<int>(DecisionPath::kModel)]
      ->Increment();
  alpha.latency->Observe(0.001);
  beta.decisions[static_cast<int>(Outcome::kAllow)][static_cast<int>(DecisionPath::kFallback)]
      ->Increment(2);
  const std::string text = registry.RenderPrometheus();
  EXPECT_NE(
      text.find(R"(verdict_engine_decisions_total{outcome="block",path="model",tenant="alpha"} 1)"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(R"(verdict_engine_decisions_total{outcome="block",path="model",tenant="beta"} 0)"),
      std::string::npos);
  EXPECT_NE(
      text.find(
          R"(verdict_engine_decisions_total{outcome="allow",path="fallback",tenant="beta"} 2)"),
      std::string::npos);
  EXPECT_NE(text.find(R"(verdict_engine_decision_seconds_count{tenant="alpha"} 1)"),
            std::string::npos);
}

TEST(TenantMetricsTest, LabelsAreBoundedByKMaxTenants) {
  MetricsRegistry registry;
  TenantMetrics metrics(registry);
  for (size_t i = 0; i < TenantMetrics::kMaxTenants; ++i) metrics.For("t" + std::to_string(i));
  const TenantMetrics::Series& late = metrics.For("late");
  const TenantMetrics::Series& later = metrics.For("later");
  EXPECT_EQ(&late, &later);
  EXPECT_NE(&late, &metrics.For("t0"));
  const std::string text = registry.RenderPrometheus();
  EXPECT_NE(text.find(R"x(tenant="(others)")x"), std::string::npos);
  EXPECT_EQ(text.find(R"(tenant="late")"), std::string::npos);
}

}  // namespace
}  // namespace verdict
