#include "tracing/decision_spans.h"

#include <algorithm>
#include <utility>

#include "tracing/trace_ids.h"

namespace verdict::tracing {
namespace {

constexpr int64_t kNanosPerMicro = 1000;

Span ChildSpan(const DecisionTrace& trace, std::string name, int64_t start_ns, int64_t end_ns) {
  Span span;
  span.trace_id = trace.trace_id;
  span.span_id = NewSpanId();
  span.parent_span_id = trace.span_id;
  span.trace_state = trace.trace_state;
  span.name = std::move(name);
  span.kind = SpanKind::kInternal;
  span.start_unix_ns = start_ns;
  span.end_unix_ns = std::max(start_ns, end_ns);
  return span;
}

}  // namespace

std::vector<Span> DecisionSpans(const DecisionTrace& trace, const DecisionSummary& summary,
                                int64_t end_unix_ns) {
  const StageTimings& t = summary.timings;
  const bool staged = summary.error.empty() && !summary.replay;
  const int64_t total_ns =
      std::max<int64_t>(0, staged ? t.total_us * kNanosPerMicro : summary.elapsed_ns);
  const int64_t start_ns = end_unix_ns - total_ns;

  std::vector<Span> spans;
  spans.reserve(staged ? 6 : 1);
  Span& root = spans.emplace_back();
  root.trace_id = trace.trace_id;
  root.span_id = trace.span_id;
  root.parent_span_id = trace.parent_span_id;
  root.trace_state = trace.trace_state;
  root.name = "decision";
  root.kind = SpanKind::kServer;
  root.start_unix_ns = start_ns;
  root.end_unix_ns = end_unix_ns;
  root.attributes = {{"verdict.tenant", summary.tenant},
                     {"verdict.transaction_id", summary.transaction_id}};
  if (!summary.error.empty()) {
    root.error = summary.error;
    return spans;
  }
  root.attributes.emplace_back("verdict.decision_id", summary.decision_id.ToString());
  root.attributes.emplace_back("verdict.outcome", std::string(OutcomeName(summary.outcome)));
  root.attributes.emplace_back("verdict.path", std::string(DecisionPathName(summary.path)));
  if (summary.replay) {
    root.attributes.emplace_back("verdict.replay", "true");
    return spans;
  }
  // The stages one after another from the decision's start; the journal's commit ends with the
  // answer. Gaps between them (the hand-off to the journal) belong to the decision span alone.
  auto clamp = [&](int64_t ns) { return std::clamp(ns, start_ns, end_unix_ns); };
  int64_t at = start_ns;
  for (const auto& [name, us] : {std::pair<const char*, int64_t>{"queue", t.queue_us},
                                 {"features", t.features_us},
                                 {"model", t.model_us},
                                 {"policy", t.policy_us}}) {
    const int64_t end = clamp(at + std::max<int64_t>(0, us) * kNanosPerMicro);
    spans.push_back(ChildSpan(trace, name, at, end));
    at = end;
  }
  const int64_t journal_start =
      clamp(end_unix_ns - std::max<int64_t>(0, t.journal_us) * kNanosPerMicro);
  spans.push_back(ChildSpan(trace, "journal", journal_start, end_unix_ns));
  return spans;
}

}  // namespace verdict::tracing
