// Money: an exact amount as int64 minor units plus its ISO 4217 currency. Never a float.
// Value type; the CurrencyInfo it points to is static, so copies are cheap and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "core/currency.h"

namespace verdict {

class Money {
 public:
  Money() = default;
  Money(int64_t minor_units, const CurrencyInfo& currency)
      : minor_units_(minor_units), currency_(&currency) {}

  // Parses a plain decimal ("9950", "9950.5", "9950.00") in `currency`: digits, at most one
  // '.', no sign, exponent or spaces, no more fraction digits than the currency has, and at
  // most kMaxMajorDigits integer digits. Zero is allowed here; callers decide on positivity.
  static Result<Money> Parse(std::string_view text, const CurrencyInfo& currency);

  int64_t minor_units() const { return minor_units_; }
  const CurrencyInfo& currency() const { return *currency_; }
  bool valid() const { return currency_ != nullptr; }
  // The amount in major units, for features only (may round for huge amounts).
  double ToMajor() const;
  // "9950.00": exactly currency().minor_digits fraction digits.
  std::string ToDecimalString() const;
  // "9950.00 USD".
  std::string ToString() const;

  // Amounts above this many integer digits are refused: 10^15 major units is beyond any
  // real payment and keeps every currency's minor units far inside int64.
  static constexpr int kMaxMajorDigits = 15;

  friend bool operator==(const Money& a, const Money& b) {
    return a.minor_units_ == b.minor_units_ && a.currency_ == b.currency_;
  }

 private:
  int64_t minor_units_ = 0;
  const CurrencyInfo* currency_ = nullptr;
};

}  // namespace verdict
