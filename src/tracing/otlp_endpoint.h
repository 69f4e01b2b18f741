// OtlpEndpoint: a collector's OTLP/HTTP traces address, `http://HOST:PORT/v1/traces`, parsed
// once at start-up. Plain http only (a collector beside the engine or on a private network).
// Value type; the parser is stateless.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict::tracing {

struct OtlpEndpoint {
  std::string host;  // a name or address; an IPv6 address without its brackets
  std::string port;
  std::string target;  // the path, e.g. "/v1/traces"
};

// InvalidArgument naming `field` for anything but http://HOST:PORT/PATH with a port in 1..65535
// and a path (e.g. https, no port, no path, user info, a query).
Result<OtlpEndpoint> ParseOtlpEndpoint(std::string_view url, std::string_view field);

}  // namespace verdict::tracing
