#include "core/money.h"

#include <string>

namespace verdict {
namespace {

int64_t Pow10(int n) {
  int64_t p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

}  // namespace

Result<Money> Money::Parse(std::string_view text, const CurrencyInfo& currency) {
  if (text.empty()) return InvalidArgument("amount is empty");
  if (text.front() == '-') return InvalidArgument("amount must be positive");
  size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  auto all_digits = [](std::string_view s) {
    for (char c : s) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  };
  if (whole.empty() || !all_digits(whole) || !all_digits(fraction) ||
      (dot != std::string_view::npos && fraction.empty())) {
    return InvalidArgument("amount '" + std::string(text.substr(0, 40)) +
                           "' is not a plain decimal number such as 9950.00");
  }
  while (whole.size() > 1 && whole.front() == '0') whole.remove_prefix(1);
  if (whole.size() > static_cast<size_t>(kMaxMajorDigits)) {
    return InvalidArgument("amount has more than " + std::to_string(kMaxMajorDigits) +
                           " integer digits");
  }
  if (fraction.size() > currency.minor_digits) {
    return InvalidArgument("amount has " + std::to_string(fraction.size()) + " fraction digits; " +
                           std::string(currency.code) + " allows " +
                           std::to_string(currency.minor_digits));
  }
  int64_t minor = 0;
  for (char c : whole) minor = minor * 10 + (c - '0');
  int64_t frac = 0;
  for (char c : fraction) frac = frac * 10 + (c - '0');
  frac *= Pow10(currency.minor_digits - static_cast<int>(fraction.size()));
  minor = minor * Pow10(currency.minor_digits) + frac;
  return Money(minor, currency);
}

double Money::ToMajor() const {
  return static_cast<double>(minor_units_) / static_cast<double>(Pow10(currency_->minor_digits));
}

std::string Money::ToDecimalString() const {
  int digits = currency_->minor_digits;
  int64_t scale = Pow10(digits);
  int64_t abs_minor = minor_units_ < 0 ? -minor_units_ : minor_units_;
  std::string out = minor_units_ < 0 ? "-" : "";
  out += std::to_string(abs_minor / scale);
  if (digits > 0) {
    std::string frac = std::to_string(abs_minor % scale);
    out += '.';
    out.append(digits - frac.size(), '0');
    out += frac;
  }
  return out;
}

std::string Money::ToString() const {
  return ToDecimalString() + " " + std::string(currency_->code);
}

}  // namespace verdict
