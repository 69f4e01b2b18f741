#include "tracing/trace_ids.h"

#include <cstdint>
#include <random>

namespace verdict::tracing {
namespace {

std::mt19937_64& ThreadGenerator() {
  thread_local std::mt19937_64 generator = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  return generator;
}

void AppendHex64(uint64_t value, std::string& out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(kDigits[(value >> shift) & 0xf]);
}

// A non-zero draw: an all-zero id is invalid in W3C Trace Context.
uint64_t NonZeroDraw() {
  uint64_t value = 0;
  while (value == 0) value = ThreadGenerator()();
  return value;
}

}  // namespace

std::string NewTraceId() {
  std::string id;
  id.reserve(32);
  AppendHex64(ThreadGenerator()(), id);
  AppendHex64(NonZeroDraw(), id);
  return id;
}

std::string NewSpanId() {
  std::string id;
  id.reserve(16);
  AppendHex64(NonZeroDraw(), id);
  return id;
}

}  // namespace verdict::tracing
