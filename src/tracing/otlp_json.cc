#include "tracing/otlp_json.h"

#include "common/json_writer.h"

namespace verdict::tracing {
namespace {

// OTLP's Status.code for an error.
constexpr int kStatusCodeError = 2;

void WriteStringAttribute(JsonWriter& w, std::string_view key, std::string_view value) {
  w.BeginObject().Key("key").String(key);
  w.Key("value").BeginObject().Key("stringValue").String(value).EndObject();
  w.EndObject();
}

void WriteSpan(JsonWriter& w, const Span& span) {
  w.BeginObject();
  w.Key("traceId").String(span.trace_id);
  w.Key("spanId").String(span.span_id);
  if (!span.parent_span_id.empty()) w.Key("parentSpanId").String(span.parent_span_id);
  if (!span.trace_state.empty()) w.Key("traceState").String(span.trace_state);
  w.Key("name").String(span.name);
  w.Key("kind").Int(static_cast<int>(span.kind));
  // 64-bit integers are strings in the protobuf JSON mapping (a double cannot hold them).
  w.Key("startTimeUnixNano").String(std::to_string(span.start_unix_ns));
  w.Key("endTimeUnixNano").String(std::to_string(span.end_unix_ns));
  w.Key("attributes").BeginArray();
  for (const auto& [key, value] : span.attributes) WriteStringAttribute(w, key, value);
  w.EndArray();
  if (!span.error.empty()) {
    w.Key("status").BeginObject().Key("code").Int(kStatusCodeError);
    w.Key("message").String(span.error).EndObject();
  }
  w.EndObject();
}

}  // namespace

std::string EncodeExportRequest(std::string_view service_name, const std::vector<Span>& spans) {
  std::string out;
  out.reserve(256 + spans.size() * 400);
  JsonWriter w(out);
  w.BeginObject().Key("resourceSpans").BeginArray().BeginObject();
  w.Key("resource").BeginObject().Key("attributes").BeginArray();
  WriteStringAttribute(w, "service.name", service_name);
  w.EndArray().EndObject();
  w.Key("scopeSpans").BeginArray().BeginObject();
  w.Key("scope").BeginObject().Key("name").String("verdict").EndObject();
  w.Key("spans").BeginArray();
  for (const Span& span : spans) WriteSpan(w, span);
  w.EndArray();
  w.EndObject().EndArray();
  w.EndObject().EndArray().EndObject();
  return out;
}

}  // namespace verdict::tracing
