// TracingOptions: the [tracing] configuration section (docs/tracing.md). Value type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace verdict::tracing {

struct TracingOptions {
  // otlp_endpoint: where spans go, http://HOST:PORT/v1/traces (OTLP/HTTP, JSON); empty: no
  // spans are exported (a caller's traceparent is still recorded and answered).
  std::string otlp_endpoint;
  // sample_ratio: the share of decisions without a caller's traceparent that are traced
  // (0 to 1). A caller's sampled flag is honoured whatever this says.
  double sample_ratio = 0;
  // max_queue_spans: spans waiting for export; a decision whose spans do not fit has them
  // dropped (and counted), never waits.
  size_t max_queue_spans = 8192;
  // export_timeout_ms: one export request's deadline (connect, send, answer).
  int64_t export_timeout_ms = 2000;
  // service_name: the resource's service.name attribute.
  std::string service_name = "verdict";
};

}  // namespace verdict::tracing
