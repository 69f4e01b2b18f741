#include "formats/message_text.h"

#include <cstdint>

#include "common/rfc3339.h"

namespace verdict {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

std::string_view TrimSpace(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  size_t shown = 0;
  for (unsigned char c : s) {
    if (shown == 40) {
      out += "...";
      break;
    }
    if (c < 0x20 || c == 0x7F || c >= 0x80) {
      out += '?';
    } else {
      out += static_cast<char>(c);
    }
    ++shown;
  }
  out += '"';
  return out;
}

Status CheckText(std::string_view s, size_t max_chars, std::string_view what) {
  if (s.empty()) return InvalidArgument(std::string(what) + " is empty");
  if (!IsValidUtf8(s)) return InvalidArgument(std::string(what) + " is not valid UTF-8");
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) {
      return InvalidArgument(std::string(what) + " contains control characters");
    }
  }
  if (Utf8Length(s) > max_chars) {
    return InvalidArgument(std::string(what) + " is longer than " + std::to_string(max_chars) +
                           " characters");
  }
  return Status::Ok();
}

Status CheckIdentifier(std::string_view s, size_t max_chars, std::string_view what) {
  if (s.empty()) return InvalidArgument(std::string(what) + " is empty");
  if (s.size() > max_chars) {
    return InvalidArgument(std::string(what) + " " + Quote(s) + " is longer than " +
                           std::to_string(max_chars) + " characters");
  }
  for (unsigned char c : s) {
    if (c < 0x21 || c > 0x7E) {
      return InvalidArgument(std::string(what) + " " + Quote(s) +
                             " may contain only visible ASCII characters, no spaces");
    }
  }
  return Status::Ok();
}

Status CheckIsoDate(std::string_view s, int64_t* days_out) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') {
    return InvalidArgument("date " + Quote(s) + " is not YYYY-MM-DD");
  }
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return InvalidArgument("date " + Quote(s) + " is not YYYY-MM-DD");
  }
  const int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  const int m = (s[5] - '0') * 10 + (s[6] - '0');
  const int d = (s[8] - '0') * 10 + (s[9] - '0');
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1] || (m == 2 && d == 29 && !leap)) {
    return InvalidArgument("date " + Quote(s) + " does not exist");
  }
  if (days_out != nullptr) {
    *days_out = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  }
  return Status::Ok();
}

Result<std::string> ParseUetr(std::string_view s) {
  bool ok = s.size() == 36;
  for (size_t i = 0; ok && i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ok = s[i] == '-';
    } else {
      ok = IsHex(s[i]);
    }
  }
  if (!ok) return InvalidArgument("UETR " + Quote(s) + " is not a UUID (8-4-4-4-12 hex digits)");
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  if (out[14] != '4' || (out[19] != '8' && out[19] != '9' && out[19] != 'a' && out[19] != 'b')) {
    return InvalidArgument("UETR " + Quote(s) + " is not a version 4 UUID");
  }
  return out;
}

Result<int64_t> ParseCount(std::string_view s) {
  if (s.empty() || s.size() > 15) return InvalidArgument("count " + Quote(s) + " is not a number");
  int64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return InvalidArgument("count " + Quote(s) + " is not a number");
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace verdict
