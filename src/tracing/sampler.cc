#include "tracing/sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace verdict::tracing {
namespace {

// The last 16 hex digits of a trace id as a number; 0 for a malformed id.
uint64_t LowBits(std::string_view trace_id) {
  if (trace_id.size() != 32) return 0;
  uint64_t value = 0;
  for (char c : trace_id.substr(16)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0);
    value = (value << 4) | static_cast<uint64_t>(digit);
  }
  return value;
}

}  // namespace

Sampler::Sampler(double ratio) : ratio_(std::isnan(ratio) ? 0.0 : std::clamp(ratio, 0.0, 1.0)) {}

bool Sampler::Sample(const std::optional<TraceContext>& caller, std::string_view trace_id) const {
  if (caller) return caller->sampled;
  return SampleByRatio(trace_id);
}

bool Sampler::SampleByRatio(std::string_view trace_id) const {
  if (ratio_ <= 0) return false;
  if (ratio_ >= 1) return true;
  // ratio × 2^64 fits in a double exactly enough for sampling; below 1 it is below 2^64.
  const auto bound = static_cast<uint64_t>(std::ldexp(ratio_, 64));
  return LowBits(trace_id) < bound;
}

}  // namespace verdict::tracing
