// PostOtlpJson: one blocking HTTP/1.1 POST of an OTLP JSON body to a collector, on a fresh
// connection, within a deadline. Used by the exporter's own thread only, never by a thread
// that decides or answers. Stateless; thread-safe.
#pragma once

#include <chrono>
#include <string>

#include "common/status.h"
#include "tracing/otlp_endpoint.h"

namespace verdict::tracing {

// OK when the collector answers 2xx within `timeout` (name resolution, connect, write and
// read all count); kUnavailable otherwise, with what went wrong.
Status PostOtlpJson(const OtlpEndpoint& endpoint, const std::string& body,
                    std::chrono::milliseconds timeout);

}  // namespace verdict::tracing
