// Parsing of amounts and timestamps as the CSV datasets write them. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/result.h"
#include "core/money.h"

namespace verdict {

// "1234", "1234.5", "0.00012345": a non-negative decimal without sign or exponent. Fraction
// digits beyond the currency's are rounded half up (datasets print more digits than the
// currency has); at most Money::kMaxMajorDigits integer digits.
Result<Money> ParseDatasetAmount(std::string_view text, const CurrencyInfo& currency);

// The currency of an ISO 4217 code or of an AMLworld currency name ("US Dollar", "Euro",
// "UK Pound", ..., "Bitcoin" → the non-ISO "XBT" with 8 digits); nullptr when unknown.
const CurrencyInfo* CurrencyByCodeOrName(std::string_view text);

// "YYYY/MM/DD HH:MM" (AMLworld), as UTC microseconds.
Result<int64_t> ParseSlashTimestamp(std::string_view text);

// A decimal integer (optional leading '-'), for steps, ids and flags.
Result<int64_t> ParseInteger(std::string_view text);

}  // namespace verdict
