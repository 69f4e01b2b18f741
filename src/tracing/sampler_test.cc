#include "tracing/sampler.h"

#include <gtest/gtest.h>

#include "tracing/trace_ids.h"

namespace verdict::tracing {
namespace {

TraceContext SamplerCaller(bool sampled) {
  return TraceContext{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", sampled, ""};
}

TEST(SamplerTest, TheCallersFlagIsHonouredWhateverTheRatio) {
  const std::string id = "4bf92f3577b34da6a3ce929d0e0e4736";
  EXPECT_TRUE(Sampler(0).Sample(SamplerCaller(true), id));
  EXPECT_FALSE(Sampler(1).Sample(SamplerCaller(false), id));
}

TEST(SamplerTest, WithoutACallerTheRatioDecidesByTheTraceIdsLowBits) {
  EXPECT_FALSE(Sampler(0).Sample(std::nullopt, "ffffffffffffffff0000000000000001"));
  EXPECT_TRUE(Sampler(1).Sample(std::nullopt, "0000000000000000ffffffffffffffff"));
  const Sampler half(0.5);
  EXPECT_TRUE(half.Sample(std::nullopt, "ffffffffffffffff7fffffffffffffff"));
  EXPECT_FALSE(half.Sample(std::nullopt, "00000000000000008000000000000000"));
}

TEST(SamplerTest, RatiosOutsideZeroToOneAreClamped) {
  EXPECT_EQ(Sampler(-3).ratio(), 0);
  EXPECT_EQ(Sampler(7).ratio(), 1);
}

TEST(SamplerTest, ARatioSamplesAboutThatShareOfRandomTraceIds) {
  const Sampler sampler(0.25);
  int sampled = 0;
  constexpr int kDraws = 20'000;
  for (int i = 0; i < kDraws; ++i) sampled += sampler.Sample(std::nullopt, NewTraceId()) ? 1 : 0;
  // 0.25 ± 0.02: about seven standard deviations either way.
  EXPECT_GT(sampled, kDraws * 23 / 100);
  EXPECT_LT(sampled, kDraws * 27 / 100);
}

TEST(TraceIdsTest, NewIdsAreValidAndDistinct) {
  const std::string trace = NewTraceId();
  const std::string span = NewSpanId();
  EXPECT_TRUE(IsNonZeroLowerHex(trace, 32)) << trace;
  EXPECT_TRUE(IsNonZeroLowerHex(span, 16)) << span;
  EXPECT_NE(NewTraceId(), trace);
  EXPECT_NE(NewSpanId(), span);
}

}  // namespace
}  // namespace verdict::tracing
