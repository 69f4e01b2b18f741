#include "formats/amount.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/rfc3339.h"

namespace verdict {

namespace {

constexpr CurrencyInfo kBitcoin{"XBT", 8};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<Money> ParseDatasetAmount(std::string_view text, const CurrencyInfo& currency) {
  if (text.empty()) return InvalidArgument("empty amount", "amount");
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty() && frac.empty()) return InvalidArgument("bad amount", "amount");
  // In minor units the amount must fit an int64: 18 digits in all, so a currency with 8 minor
  // digits (XBT) has 10 whole digits, not kMaxMajorDigits.
  const size_t max_whole = std::min<size_t>(Money::kMaxMajorDigits, 18 - currency.minor_digits);
  if (whole.size() > max_whole) {
    return InvalidArgument("amount too large: at most " + std::to_string(max_whole) +
                               " whole digits in " + std::string(currency.code),
                           "amount");
  }
  int64_t units = 0;
  for (char c : whole) {
    if (!IsDigit(c)) return InvalidArgument("bad amount: " + std::string(text), "amount");
    units = units * 10 + (c - '0');
  }
  for (char c : frac) {
    if (!IsDigit(c)) return InvalidArgument("bad amount: " + std::string(text), "amount");
  }
  const size_t digits = currency.minor_digits;
  int64_t minor = units;
  for (size_t i = 0; i < digits; ++i) {
    minor = minor * 10 + (i < frac.size() ? frac[i] - '0' : 0);
  }
  if (frac.size() > digits && frac[digits] >= '5') ++minor;  // half up
  return Money(minor, currency);
}

const CurrencyInfo* CurrencyByCodeOrName(std::string_view text) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"US Dollar", "USD"},
      {"Euro", "EUR"},
      {"UK Pound", "GBP"},
      {"Yuan", "CNY"},
      {"Yen", "JPY"},
      {"Rupee", "INR"},
      {"Ruble", "RUB"},
      {"Canadian Dollar", "CAD"},
      {"Australian Dollar", "AUD"},
      {"Swiss Franc", "CHF"},
      {"Mexican Peso", "MXN"},
      {"Brazil Real", "BRL"},
      {"Saudi Riyal", "SAR"},
      {"Shekel", "ILS"},
  };
  if (text == "Bitcoin" || text == "XBT" || text == "BTC") return &kBitcoin;
  for (const auto& [name, code] : kNames) {
    if (name == text) return FindCurrency(code);
  }
  return FindCurrency(text);
}

Result<int64_t> ParseSlashTimestamp(std::string_view text) {
  // YYYY/MM/DD HH:MM
  if (text.size() != 16 || text[4] != '/' || text[7] != '/' || text[10] != ' ' || text[13] != ':') {
    return InvalidArgument("timestamp is not YYYY/MM/DD HH:MM", "timestamp");
  }
  auto num = [&](size_t pos, size_t len, int64_t* v) {
    *v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (!IsDigit(text[i])) return false;
      *v = *v * 10 + (text[i] - '0');
    }
    return true;
  };
  int64_t y, mo, d, h, mi;
  if (!num(0, 4, &y) || !num(5, 2, &mo) || !num(8, 2, &d) || !num(11, 2, &h) || !num(14, 2, &mi)) {
    return InvalidArgument("timestamp has non-digits", "timestamp");
  }
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] || (mo == 2 && d == 29 && !leap) ||
      h > 23 || mi > 59) {
    return InvalidArgument("timestamp out of range", "timestamp");
  }
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60 * int64_t{1'000'000};
}

Result<int64_t> ParseInteger(std::string_view text) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (text.empty() || text.size() > 18) return InvalidArgument("bad integer");
  int64_t v = 0;
  for (char c : text) {
    if (!IsDigit(c)) return InvalidArgument("bad integer");
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

}  // namespace verdict
