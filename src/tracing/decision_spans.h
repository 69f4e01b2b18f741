// The spans of one decision, built after it is answered: a server span for the whole decision
// whose parent is the caller's span (or none), and one child per stage (queue, features, model,
// policy, journal) laid out from the decision's stage timings. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/decision.h"
#include "tracing/span.h"

namespace verdict::tracing {

// What a decision's trace is, settled when the decision starts (Tracer::Begin).
struct DecisionTrace {
  std::string trace_id;        // the caller's, or a new one
  std::string span_id;         // the decision span's, new
  std::string parent_span_id;  // the caller's span; empty without a caller's context
  std::string trace_state;     // the caller's tracestate, passed along
  bool sampled = false;        // its spans are recorded (Sampler)
};

// What the spans say about the decision once it is answered.
struct DecisionSummary {
  Uuid decision_id;
  std::string transaction_id;
  std::string tenant;
  Outcome outcome = Outcome::kAllow;
  DecisionPath path = DecisionPath::kModel;
  StageTimings timings;
  // Set instead of the stages: the answer was an error (this message), or a stored decision
  // answered again (a replay has no stages of its own). Either way only the decision span is
  // made, `elapsed_ns` long.
  std::string error;
  bool replay = false;
  int64_t elapsed_ns = 0;
};

// The spans of `summary`, ending at `end_unix_ns` (wall clock, nanoseconds since the epoch).
// Stage span ids are new; the decision span's is `trace.span_id`.
std::vector<Span> DecisionSpans(const DecisionTrace& trace, const DecisionSummary& summary,
                                int64_t end_unix_ns);

}  // namespace verdict::tracing
