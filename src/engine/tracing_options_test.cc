// [tracing] configuration read by engine_options.cc (docs/tracing.md).
#include <gtest/gtest.h>

#include <string>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(TracingOptionsTest, OffByDefault) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_TRUE(defaults->tracing.otlp_endpoint.empty());
  EXPECT_EQ(defaults->tracing.sample_ratio, 0);
}

TEST(TracingOptionsTest, ReadsEveryKey) {
  auto set = ParseEngineOptions(
      "[tracing]\notlp_endpoint = \"http://127.0.0.1:4318/v1/traces\"\nsample_ratio = 0.25\n"
      "max_queue_spans = 100\nexport_timeout_ms = 500\nservice_name = \"verdict-eu\"\n",
      "t.toml");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->tracing.otlp_endpoint, "http://127.0.0.1:4318/v1/traces");
  EXPECT_EQ(set->tracing.sample_ratio, 0.25);
  EXPECT_EQ(set->tracing.max_queue_spans, 100u);
  EXPECT_EQ(set->tracing.export_timeout_ms, 500);
  EXPECT_EQ(set->tracing.service_name, "verdict-eu");
}

TEST(TracingOptionsTest, BadValuesAreErrorsNamingTheKey) {
  const struct {
    const char* toml;
    const char* field;
  } kBad[] = {
      {"[tracing]\nsample_ratio = 1.5\n", "tracing.sample_ratio"},
      {"[tracing]\nsample_ratio = -0.1\n", "tracing.sample_ratio"},
      {"[tracing]\notlp_endpoint = \"https://collector:4318/v1/traces\"\n",
       "tracing.otlp_endpoint"},
      {"[tracing]\notlp_endpoint = \"http://collector/v1/traces\"\n", "tracing.otlp_endpoint"},
      {"[tracing]\nmax_queue_spans = 0\n", "tracing.max_queue_spans"},
      {"[tracing]\nservice_name = \"\"\n", "tracing.service_name"},
      {"[tracing]\nsample_rate = 1\n", "tracing.sample_rate"},
  };
  for (const auto& c : kBad) {
    auto options = ParseEngineOptions(c.toml, "t.toml");
    ASSERT_FALSE(options.ok()) << c.toml;
    EXPECT_EQ(options.status().field(), c.field) << options.status().ToString();
  }
}

}  // namespace
}  // namespace verdict
