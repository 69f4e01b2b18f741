#include "tracing/tracer.h"

#include <spdlog/spdlog.h>

#include "tracing/otlp_json.h"
#include "tracing/otlp_post.h"
#include "tracing/trace_ids.h"

namespace verdict::tracing {
namespace {

// A batch is sent when this many spans are queued, or after kFlushInterval, whichever is first.
constexpr size_t kBatchSpans = 512;
constexpr auto kFlushInterval = std::chrono::milliseconds(500);
// A failing export is logged at most this often.
constexpr int64_t kWarningIntervalNs = 30'000'000'000;

}  // namespace

Result<std::shared_ptr<Tracer>> Tracer::Create(const TracingOptions& options,
                                               MetricsRegistry& metrics, const Clock& clock) {
  std::optional<OtlpEndpoint> endpoint;
  if (!options.otlp_endpoint.empty()) {
    VERDICT_ASSIGN_OR_RETURN(endpoint,
                             ParseOtlpEndpoint(options.otlp_endpoint, "tracing.otlp_endpoint"));
  }
  return std::shared_ptr<Tracer>(new Tracer(options, std::move(endpoint), metrics, clock));
}

Tracer::Tracer(const TracingOptions& options, std::optional<OtlpEndpoint> endpoint,
               MetricsRegistry& metrics, const Clock& clock)
    : options_(options),
      endpoint_(std::move(endpoint)),
      sampler_(options.sample_ratio),
      clock_(clock),
      metrics_{metrics.GetCounter("verdict_tracing_spans_exported_total",
                                  "Spans the OTLP collector accepted."),
               metrics.GetCounter("verdict_tracing_spans_dropped_total",
                                  "Spans dropped: the export queue was full, or their export "
                                  "failed."),
               metrics.GetCounter("verdict_tracing_export_failures_total",
                                  "OTLP export requests that failed or timed out.")},
      queue_(options.max_queue_spans) {
  if (endpoint_) exporter_ = std::thread([this] { ExportLoop(); });
}

Tracer::~Tracer() {
  queue_.Close();
  if (exporter_.joinable()) exporter_.join();
}

std::optional<DecisionTrace> Tracer::Begin(const std::optional<TraceContext>& caller) const {
  DecisionTrace trace;
  if (caller) {
    trace.trace_id = caller->trace_id;
    trace.parent_span_id = caller->parent_span_id;
    trace.trace_state = caller->tracestate;
    trace.sampled = caller->sampled;
  } else {
    // A trace of our own is worth an id only if its spans can go somewhere.
    if (!exporting() || sampler_.ratio() <= 0) return std::nullopt;
    trace.trace_id = NewTraceId();
    trace.sampled = sampler_.SampleByRatio(trace.trace_id);
    if (!trace.sampled) return std::nullopt;
  }
  trace.span_id = NewSpanId();
  return trace;
}

void Tracer::RecordDecision(const DecisionTrace& trace, const DecisionSummary& summary) {
  if (!Records(trace)) return;
  std::vector<Span> spans = DecisionSpans(trace, summary, clock_.NowMicros() * 1000);
  const size_t n = spans.size();
  if (!queue_.Push(spans)) metrics_.dropped->Increment(n);
}

bool Tracer::Flush(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (queue_.unfinished() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void Tracer::ExportLoop() {
  while (true) {
    std::vector<Span> batch =
        queue_.Take(kBatchSpans, kBatchSpans, std::chrono::steady_clock::now() + kFlushInterval);
    if (batch.empty()) {
      if (queue_.closed()) return;
      continue;
    }
    const bool sent = Send(std::move(batch));
    if (!sent && queue_.closed()) {
      // Shutting down with the collector away: one timeout is all shutdown waits for it.
      std::vector<Span> rest = queue_.Take(0, options_.max_queue_spans, {});
      metrics_.dropped->Increment(rest.size());
      queue_.Finished(rest.size());
      return;
    }
  }
}

bool Tracer::Send(std::vector<Span> batch) {
  const size_t n = batch.size();
  const std::string body = EncodeExportRequest(options_.service_name, batch);
  batch.clear();
  const Status sent =
      PostOtlpJson(*endpoint_, body, std::chrono::milliseconds(options_.export_timeout_ms));
  if (sent.ok()) {
    metrics_.exported->Increment(n);
  } else {
    metrics_.export_failures->Increment();
    metrics_.dropped->Increment(n);
    // A collector that is away fails every batch: one line per kWarningInterval says so.
    ++failures_since_warning_;
    const int64_t now_ns = clock_.MonotonicNanos();
    if (last_warning_ns_ == 0 || now_ns - last_warning_ns_ >= kWarningIntervalNs) {
      spdlog::warn("tracing: {} OTLP export(s) failed, spans dropped; last: {}",
                   failures_since_warning_, sent.message());
      last_warning_ns_ = now_ns;
      failures_since_warning_ = 0;
    }
  }
  queue_.Finished(n);
  return sent.ok();
}

}  // namespace verdict::tracing
