// RFC 3339 timestamps <-> UTC microseconds since the Unix epoch. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict {

// Parses "2026-12-02T10:15:30.123Z" or "...+01:00" (RFC 3339 §5.6: 'T'/'t' separator, 'Z'/'z'
// or a ±hh:mm offset, up to 9 fraction digits, truncated to microseconds) and normalizes the
// offset to UTC. Years 0001-9999. A leap second (":60") is refused: payments do not carry them
// and accepting one would silently shift event time.
Result<int64_t> ParseRfc3339Micros(std::string_view text);

// "2026-12-02T10:15:30.123000Z": always six fraction digits, always 'Z'.
std::string FormatRfc3339Micros(int64_t micros);

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

}  // namespace verdict
