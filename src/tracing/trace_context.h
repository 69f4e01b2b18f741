// TraceContext: a caller's W3C Trace Context (https://www.w3.org/TR/trace-context/): the
// `traceparent` header parsed strictly (version 00), with the `tracestate` that came with it.
// This is how a request or a consumed message joins the caller's trace: the HTTP routes parse
// the headers, an ingest consumer parses the message's headers the same way, and either puts
// the result in Caller::trace. Value type; thread-compatible; the functions are stateless.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace verdict::tracing {

// A tracestate longer than this is not kept (W3C asks vendors to propagate at least 512
// characters; a longer one would be an unbounded string copied into every span).
inline constexpr size_t kMaxTraceStateBytes = 512;

struct TraceContext {
  std::string trace_id;        // 32 lower-case hex digits, not all zero
  std::string parent_span_id;  // 16 lower-case hex digits, not all zero: the caller's span
  bool sampled = false;        // the caller's sampled flag (flags bit 0)
  std::string tracestate;      // as received when valid and at most kMaxTraceStateBytes; else ""
};

// The context of a `traceparent` header and its `tracestate`, or nullopt when `traceparent`
// is absent or invalid: an invalid header is ignored as W3C Trace Context says (the request
// goes on as if untraced), never an error. Version 00 only; the spec's rule for higher versions
// (parse the 00 fields, ignore what follows a '-') is followed for versions 01..fe; version ff
// is invalid. Upper-case hex is invalid, as the spec says.
std::optional<TraceContext> ParseTraceParent(std::string_view traceparent,
                                             std::string_view tracestate = {});

// "00-<trace_id>-<span_id>-<01|00>": the header that names `span_id` in `trace_id`.
std::string FormatTraceParent(std::string_view trace_id, std::string_view span_id, bool sampled);

// True when `text` is `length` lower-case hex digits, not all of them zero.
bool IsNonZeroLowerHex(std::string_view text, size_t length);

}  // namespace verdict::tracing
