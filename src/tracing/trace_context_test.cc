#include "tracing/trace_context.h"

#include <gtest/gtest.h>

#include <string>

namespace verdict::tracing {
namespace {

constexpr char kValid[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceParentTest, ParsesTheSpecsExample) {
  std::optional<TraceContext> context = ParseTraceParent(kValid, "congo=t61rcWkgMzE");
  ASSERT_TRUE(context);
  EXPECT_EQ(context->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(context->parent_span_id, "00f067aa0ba902b7");
  EXPECT_TRUE(context->sampled);
  EXPECT_EQ(context->tracestate, "congo=t61rcWkgMzE");
}

TEST(TraceParentTest, TheSampledFlagIsBitZeroOfTheFlags) {
  const std::string base = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-";
  EXPECT_FALSE(ParseTraceParent(base + "00")->sampled);
  EXPECT_TRUE(ParseTraceParent(base + "01")->sampled);
  EXPECT_FALSE(ParseTraceParent(base + "02")->sampled);  // other bits: kept unknown, ignored
  EXPECT_TRUE(ParseTraceParent(base + "03")->sampled);
}

TEST(TraceParentTest, EveryInvalidFormIsIgnored) {
  const struct {
    const char* why;
    std::string header;
  } kInvalid[] = {
      {"empty", ""},
      {"short", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0"},
      {"version 00 with more fields", std::string(kValid) + "-extra"},
      {"version 00 one byte long", std::string(kValid) + "0"},
      {"version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
      {"version not hex", "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
      {"upper-case version", "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
      {"all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
      {"all-zero parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"},
      {"upper-case trace id", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"},
      {"upper-case parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01"},
      {"trace id not hex", "00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01"},
      {"parent id not hex", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01"},
      {"flags not hex", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x"},
      {"upper-case flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A"},
      {"wrong separator", "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
      {"short trace id", "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01"},
      {"spaces", " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
      {"a later version without a dash after the fields",
       "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"},
  };
  for (const auto& c : kInvalid) EXPECT_FALSE(ParseTraceParent(c.header)) << c.why;
}

TEST(TraceParentTest, ALaterVersionIsReadAsVersionZero) {
  EXPECT_TRUE(ParseTraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
  EXPECT_TRUE(
      ParseTraceParent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-follows"));
}

TEST(TraceParentTest, AnOversizeOrUnprintableTraceStateIsDroppedNotTheContext) {
  std::optional<TraceContext> big = ParseTraceParent(kValid, std::string(513, 'a'));
  ASSERT_TRUE(big);
  EXPECT_TRUE(big->tracestate.empty());
  EXPECT_EQ(ParseTraceParent(kValid, std::string(512, 'a'))->tracestate.size(), 512u);
  std::optional<TraceContext> control = ParseTraceParent(kValid, "a=b\nc=d");
  ASSERT_TRUE(control);
  EXPECT_TRUE(control->tracestate.empty());
}

TEST(TraceParentTest, FormatsWhatItParses) {
  const std::string header =
      FormatTraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", /*sampled=*/true);
  EXPECT_EQ(header, kValid);
  EXPECT_TRUE(ParseTraceParent(header));
  EXPECT_EQ(
      FormatTraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", false).substr(53),
      "00");
}

}  // namespace
}  // namespace verdict::tracing
