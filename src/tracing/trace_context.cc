#include "tracing/trace_context.h"

namespace verdict::tracing {
namespace {

bool IsLowerHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

int HexValue(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

// A tracestate is a list of printable ASCII members; a header with anything else (control
// bytes, non-ASCII) is dropped rather than copied into spans and logs.
bool IsPrintableAscii(std::string_view text) {
  for (char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

bool IsNonZeroLowerHex(std::string_view text, size_t length) {
  if (text.size() != length) return false;
  bool non_zero = false;
  for (char c : text) {
    if (!IsLowerHexDigit(c)) return false;
    non_zero |= c != '0';
  }
  return non_zero;
}

std::optional<TraceContext> ParseTraceParent(std::string_view traceparent,
                                             std::string_view tracestate) {
  // version "-" trace-id "-" parent-id "-" trace-flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55.
  constexpr size_t kLength = 55;
  if (traceparent.size() < kLength) return std::nullopt;
  const std::string_view version = traceparent.substr(0, 2);
  if (!IsLowerHexDigit(version[0]) || !IsLowerHexDigit(version[1]) || version == "ff") {
    return std::nullopt;
  }
  // Version 00 is exactly 55 characters; a later version may append "-..." fields.
  if (version == "00" ? traceparent.size() != kLength
                      : (traceparent.size() > kLength && traceparent[kLength] != '-')) {
    return std::nullopt;
  }
  if (traceparent[2] != '-' || traceparent[35] != '-' || traceparent[52] != '-') {
    return std::nullopt;
  }
  const std::string_view trace_id = traceparent.substr(3, 32);
  const std::string_view parent_id = traceparent.substr(36, 16);
  const std::string_view flags = traceparent.substr(53, 2);
  if (!IsNonZeroLowerHex(trace_id, 32) || !IsNonZeroLowerHex(parent_id, 16)) return std::nullopt;
  if (!IsLowerHexDigit(flags[0]) || !IsLowerHexDigit(flags[1])) return std::nullopt;
  TraceContext context;
  context.trace_id = std::string(trace_id);
  context.parent_span_id = std::string(parent_id);
  context.sampled = (HexValue(flags[1]) & 1) != 0;
  if (tracestate.size() <= kMaxTraceStateBytes && IsPrintableAscii(tracestate)) {
    context.tracestate = std::string(tracestate);
  }
  return context;
}

std::string FormatTraceParent(std::string_view trace_id, std::string_view span_id, bool sampled) {
  std::string header;
  header.reserve(55);
  header.append("00-").append(trace_id).append("-").append(span_id);
  header.append(sampled ? "-01" : "-00");
  return header;
}

}  // namespace verdict::tracing
