// Random W3C trace and span ids, as lower-case hex: each thread draws from its own generator
// seeded from std::random_device, so no lock and no shared state. Thread-safe.
#pragma once

#include <string>

namespace verdict::tracing {

std::string NewTraceId();  // 32 hex digits, never all zero
std::string NewSpanId();   // 16 hex digits, never all zero

}  // namespace verdict::tracing
