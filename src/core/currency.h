// ISO 4217 currencies and ISO 3166-1 countries: static, immutable tables; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace verdict {

struct CurrencyInfo {
  std::string_view code;  // three upper-case letters, e.g. "USD"
  uint8_t minor_digits;   // digits after the decimal point: USD 2, JPY 0, KWD 3
};

// Returns the active ISO 4217 currency with this code (exact, upper-case), or nullptr.
// Funds, precious metals and testing codes (XAU, XTS, XXX) are not payment currencies here.
const CurrencyInfo* FindCurrency(std::string_view code);

// True for an officially assigned ISO 3166-1 alpha-2 code (upper-case), plus "XK" (Kosovo),
// which SWIFT and ISO 20022 traffic uses.
bool IsCountryCode(std::string_view code);

}  // namespace verdict
