// Engine::Decide with a caller's W3C trace context (docs/tracing.md): the answer carries the
// trace and the engine's decision span, the record keeps the trace id, and a retry is answered
// with the stored decision's trace whatever its own context says.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

TEST(DecideTraceTest, TheCallersTraceIsAnsweredAndJournaledWithTheDecision) {
  journal::testing_util::TempDir dir;
  EngineOptions options;
  options.data_dir = dir.path();
  options.sched.workers = 1;
  MetricsRegistry metrics;
  engine_testing::TickingClock clock;
  Result<std::unique_ptr<Engine>> engine = Engine::Create(options, metrics, clock);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();

  Caller traced;
  traced.trace = tracing::ParseTraceParent(
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "congo=t61rcWkgMzE");
  ASSERT_TRUE(traced.trace);
  const Transaction txn = engine_testing::MakeTransaction("t1", "12.00", "S1", "R1");
  Result<Decision> answered = (*engine)->DecideAndWait(txn, 0, false, traced);
  ASSERT_TRUE(answered.ok()) << answered.status().ToString();
  EXPECT_EQ(answered->trace.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_TRUE(tracing::IsNonZeroLowerHex(answered->trace.span_id, 16));
  EXPECT_NE(answered->trace.span_id, "00f067aa0ba902b7");
  EXPECT_TRUE(answered->trace.sampled);

  Result<std::optional<Decision>> stored =
      (*engine)->FindDecision(traced.tenant, answered->decision_id);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->trace.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_TRUE((*stored)->trace.span_id.empty());

  // The retry carries another trace: the answer is the stored decision, as first answered.
  Caller other = traced;
  other.trace =
      tracing::ParseTraceParent("00-11111111111111111111111111111111-00f067aa0ba902b7-01");
  Result<Decision> again = (*engine)->DecideAndWait(txn, 0, false, other);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->decision_id, answered->decision_id);
  EXPECT_EQ(again->trace.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");

  // Without a context (and no exporter to sample for): no trace.
  Result<Decision> untraced = (*engine)->DecideAndWait(
      engine_testing::MakeTransaction("t2", "12.00", "S2", "R2"), 0, false, Caller{});
  ASSERT_TRUE(untraced.ok()) << untraced.status().ToString();
  EXPECT_TRUE(untraced->trace.trace_id.empty());
}

}  // namespace
}  // namespace verdict
