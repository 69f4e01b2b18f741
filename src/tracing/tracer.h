// Tracer: the engine's tracing front (docs/tracing.md). At a decision's start it settles the
// decision's trace (the caller's, or a sampled new one); after the answer it turns the
// decision into spans and queues them; its own exporter thread sends them to the collector in
// batches over OTLP/HTTP, each within a timeout. Deciding threads never wait on the collector:
// a full queue drops the decision's spans and counts them. Owned by the engine through a
// shared_ptr (an answer the journal completes after the engine is gone may still record);
// thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "tracing/decision_spans.h"
#include "tracing/otlp_endpoint.h"
#include "tracing/sampler.h"
#include "tracing/span_queue.h"
#include "tracing/trace_context.h"
#include "tracing/tracing_options.h"

namespace verdict::tracing {

class Tracer {
 public:
  // Validates `options` (the endpoint's form); starts the exporter when there is an endpoint.
  // The metrics are the registry's (verdict_tracing_*); `clock` must outlive the tracer.
  static Result<std::shared_ptr<Tracer>> Create(const TracingOptions& options,
                                                MetricsRegistry& metrics, const Clock& clock);
  // Sends what is queued (one attempt, within the export timeout), then stops the exporter.
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The trace of a decision made for a caller with `caller` context: nullopt when it has none
  // (no caller's context, and not sampled by ratio or no exporter to send spans to).
  std::optional<DecisionTrace> Begin(const std::optional<TraceContext>& caller) const;
  // Whether a decision with `trace` should have its spans recorded (RecordDecision).
  bool Records(const DecisionTrace& trace) const { return exporting() && trace.sampled; }
  // Queues the spans of an answered decision, ending now; drops and counts them when the
  // queue is full. Call after the answer, never under a lock the decision path needs.
  void RecordDecision(const DecisionTrace& trace, const DecisionSummary& summary);

  bool exporting() const { return endpoint_.has_value(); }
  const Clock& clock() const { return clock_; }

  // Waits until the queue is empty and the last batch taken is sent (or failed), up to
  // `timeout`: for tests and orderly shutdown. True when everything was handed over.
  bool Flush(std::chrono::milliseconds timeout);

 private:
  struct Metrics {
    Counter* exported;
    Counter* dropped;
    Counter* export_failures;
  };
  Tracer(const TracingOptions& options, std::optional<OtlpEndpoint> endpoint,
         MetricsRegistry& metrics, const Clock& clock);
  void ExportLoop();
  // True when the collector took `batch`; counts either way.
  bool Send(std::vector<Span> batch);

  const TracingOptions options_;
  const std::optional<OtlpEndpoint> endpoint_;
  const Sampler sampler_;
  const Clock& clock_;
  Metrics metrics_;
  SpanQueue queue_;
  // The exporter thread's own: when it last logged a failed export, and failures since.
  int64_t last_warning_ns_ = 0;
  uint64_t failures_since_warning_ = 0;
  std::thread exporter_;
};

}  // namespace verdict::tracing
