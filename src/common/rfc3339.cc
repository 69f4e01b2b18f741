#include "common/rfc3339.h"

#include <cstdio>

#include "common/clock.h"

namespace verdict {
namespace {

bool ReadDigits(std::string_view text, size_t pos, size_t count, int& out) {
  if (pos + count > text.size()) return false;
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  out = value;
  return true;
}

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in seconds since the epoch.
constexpr int64_t kFirstSecond = -62'135'596'800;
constexpr int64_t kLastSecond = 253'402'300'799;

Status Bad(std::string_view text, const char* why) {
  return InvalidArgument("timestamp '" + std::string(text.substr(0, 40)) + "' is not RFC 3339 (" +
                         why + "), e.g. 2026-12-02T10:15:30.123Z");
}

}  // namespace

int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

Result<int64_t> ParseRfc3339Micros(std::string_view text) {
  int year, month, day, hour, minute, second;
  if (text.size() < 10 || !ReadDigits(text, 0, 4, year) || text[4] != '-' ||
      !ReadDigits(text, 5, 2, month) || text[7] != '-' || !ReadDigits(text, 8, 2, day)) {
    return Bad(text, "date must be YYYY-MM-DD");
  }
  if (text.size() < 19 || (text[10] != 'T' && text[10] != 't')) {
    return Bad(text, "expected 'T' and hh:mm:ss after the date");
  }
  if (!ReadDigits(text, 11, 2, hour) || text[13] != ':' || !ReadDigits(text, 14, 2, minute) ||
      text[16] != ':' || !ReadDigits(text, 17, 2, second)) {
    return Bad(text, "time must be hh:mm:ss");
  }
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) {
    return Bad(text, "no such date");
  }
  if (hour > 23 || minute > 59) return Bad(text, "no such time of day");
  if (second == 60) return Bad(text, "leap seconds are not accepted");
  if (second > 59) return Bad(text, "no such time of day");

  size_t pos = 19;
  int64_t micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return Bad(text, "empty fraction of a second");
    if (digits > 9) return Bad(text, "more than 9 fraction digits");
    for (size_t i = digits; i < 6; ++i) micros *= 10;
  }
  if (pos >= text.size()) return Bad(text, "missing time zone offset ('Z' or ±hh:mm)");
  int64_t offset_minutes = 0;
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    int off_h, off_m;
    if (!ReadDigits(text, pos + 1, 2, off_h) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !ReadDigits(text, pos + 4, 2, off_m) || off_h > 23 || off_m > 59) {
      return Bad(text, "offset must be ±hh:mm");
    }
    offset_minutes = (text[pos] == '-' ? -1 : 1) * int64_t{off_h * 60 + off_m};
    pos += 6;
  } else {
    return Bad(text, "missing time zone offset ('Z' or ±hh:mm)");
  }
  if (pos != text.size()) return Bad(text, "trailing characters");

  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t seconds = days * 86400 + int64_t{hour} * 3600 + int64_t{minute} * 60 + second -
                    int64_t{offset_minutes} * 60;
  // The offset can carry a time at a year's edge into year 0 or 10000 in UTC, which the
  // four-digit form FormatRfc3339Micros writes (and every stored timestamp is) cannot hold: such
  // an instant, accepted, would be stored and then refused when read back.
  if (seconds < kFirstSecond || seconds > kLastSecond) {
    return Bad(text, "in UTC it falls outside the years 0001 to 9999");
  }
  return seconds * kMicrosPerSecond + micros;
}

std::string FormatRfc3339Micros(int64_t micros) {
  int64_t seconds = micros / kMicrosPerSecond;
  int64_t frac = micros % kMicrosPerSecond;
  if (frac < 0) {
    frac += kMicrosPerSecond;
    --seconds;
  }
  int64_t days = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  // civil_from_days (inverse of DaysFromCivil).
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2);
  if (year < 0 || year > 9999) {  // outside what four digits hold: rare, let printf pad it
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06lldZ",
                  static_cast<long long>(year), month, day, static_cast<long long>(rem / 3600),
                  static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60),
                  static_cast<long long>(frac));
    return buf;
  }
  // Every decision formats a timestamp or two; digits by hand are several times faster than
  // snprintf's format parsing.
  std::string out = "0000-00-00T00:00:00.000000Z";
  auto digits = [&out](size_t end, int64_t value, int count) {
    for (int i = 0; i < count; ++i, value /= 10) out[end - i] = static_cast<char>('0' + value % 10);
  };
  digits(3, year, 4);
  digits(6, month, 2);
  digits(9, day, 2);
  digits(12, rem / 3600, 2);
  digits(15, rem / 60 % 60, 2);
  digits(18, rem % 60, 2);
  digits(25, frac, 6);
  return out;
}

}  // namespace verdict
