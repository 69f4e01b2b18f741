#include "tracing/decision_spans.h"

#include <gtest/gtest.h>

namespace verdict::tracing {
namespace {

DecisionTrace Trace() {
  DecisionTrace trace;
  trace.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  trace.span_id = "1111111111111111";
  trace.parent_span_id = "00f067aa0ba902b7";
  trace.trace_state = "congo=t61rcWkgMzE";
  trace.sampled = true;
  return trace;
}

DecisionSummary Decided() {
  DecisionSummary summary;
  summary.transaction_id = "tx-1";
  summary.tenant = "bank-a";
  summary.outcome = Outcome::kReview;
  summary.timings = {.queue_us = 10,
                     .features_us = 20,
                     .model_us = 30,
                     .policy_us = 5,
                     .journal_us = 100,
                     .total_us = 200};
  return summary;
}

constexpr int64_t kEnd = 1'796'000'000'000'000'000;

TEST(DecisionSpansTest, TheDecisionSpansParentIsTheCallersAndTheStagesAreItsChildren) {
  const std::vector<Span> spans = DecisionSpans(Trace(), Decided(), kEnd);
  ASSERT_EQ(spans.size(), 6u);
  const Span& root = spans[0];
  EXPECT_EQ(root.name, "decision");
  EXPECT_EQ(root.kind, SpanKind::kServer);
  EXPECT_EQ(root.span_id, "1111111111111111");
  EXPECT_EQ(root.parent_span_id, "00f067aa0ba902b7");
  EXPECT_EQ(root.start_unix_ns, kEnd - 200'000);
  EXPECT_EQ(root.end_unix_ns, kEnd);
  const char* names[] = {"queue", "features", "model", "policy", "journal"};
  for (size_t i = 1; i < spans.size(); ++i) {
    EXPECT_EQ(spans[i].name, names[i - 1]);
    EXPECT_EQ(spans[i].trace_id, root.trace_id);
    EXPECT_EQ(spans[i].parent_span_id, root.span_id);
    EXPECT_EQ(spans[i].trace_state, "congo=t61rcWkgMzE");
    EXPECT_NE(spans[i].span_id, root.span_id);
    EXPECT_GE(spans[i].start_unix_ns, root.start_unix_ns);
    EXPECT_LE(spans[i].end_unix_ns, root.end_unix_ns);
  }
  EXPECT_EQ(spans[1].end_unix_ns - spans[1].start_unix_ns, 10'000);  // queue
  EXPECT_EQ(spans[3].start_unix_ns, spans[2].end_unix_ns);           // model after features
  EXPECT_EQ(spans[5].start_unix_ns, kEnd - 100'000);                 // journal ends the answer
}

TEST(DecisionSpansTest, AnErrorOrAReplayIsTheDecisionSpanAlone) {
  DecisionSummary failed = Decided();
  failed.error = "journal unavailable";
  failed.elapsed_ns = 5'000;
  std::vector<Span> spans = DecisionSpans(Trace(), failed, kEnd);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].error, "journal unavailable");
  EXPECT_EQ(spans[0].start_unix_ns, kEnd - 5'000);

  DecisionSummary replay = Decided();
  replay.replay = true;
  replay.elapsed_ns = 7'000;
  spans = DecisionSpans(Trace(), replay, kEnd);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_TRUE(spans[0].error.empty());
  EXPECT_EQ(spans[0].start_unix_ns, kEnd - 7'000);
}

TEST(DecisionSpansTest, StagesLongerThanTheDecisionAreClampedIntoIt) {
  DecisionSummary odd = Decided();
  odd.timings.features_us = 1'000'000;  // cannot be: never outside the decision span
  odd.timings.policy_us = -3;
  for (const Span& span : DecisionSpans(Trace(), odd, kEnd)) {
    EXPECT_GE(span.start_unix_ns, kEnd - 200'000) << span.name;
    EXPECT_LE(span.end_unix_ns, kEnd) << span.name;
    EXPECT_LE(span.start_unix_ns, span.end_unix_ns) << span.name;
  }
}

}  // namespace
}  // namespace verdict::tracing
