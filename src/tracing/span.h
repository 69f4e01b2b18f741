// Span: one finished span as the exporter sends it (OTLP's Span, the fields verdict uses).
// Value type; thread-compatible. Built after a decision is answered, owned by the SpanQueue
// until the exporter takes it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace verdict::tracing {

// OTLP's SpanKind values.
enum class SpanKind : int { kInternal = 1, kServer = 2 };

struct Span {
  std::string trace_id;        // 32 lower-case hex
  std::string span_id;         // 16 lower-case hex
  std::string parent_span_id;  // 16 lower-case hex; empty: a root span
  std::string trace_state;     // the caller's tracestate, passed along
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  int64_t start_unix_ns = 0;
  int64_t end_unix_ns = 0;
  std::vector<std::pair<std::string, std::string>> attributes;  // string values only
  std::string error;  // non-empty: the span's status is ERROR with this message
};

}  // namespace verdict::tracing
