// OTLP/HTTP JSON encoding of spans: the protobuf-JSON mapping of an
// ExportTraceServiceRequest (resourceSpans → scopeSpans → spans), which a collector accepts
// at /v1/traces with Content-Type application/json, so no protobuf library is needed. Ids are
// hex strings and times decimal strings, as the OTLP spec's JSON mapping requires. Stateless;
// thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tracing/span.h"

namespace verdict::tracing {

// One request body for `spans`, all under one resource whose service.name is `service_name`.
std::string EncodeExportRequest(std::string_view service_name, const std::vector<Span>& spans);

}  // namespace verdict::tracing
