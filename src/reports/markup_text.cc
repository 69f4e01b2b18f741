#include "reports/markup_text.h"

#include "common/utf8.h"

namespace verdict::reports {

void AppendEscaped(std::string& out, std::string_view text) {
  const std::string valid = ReplaceInvalidUtf8(text);
  for (size_t i = 0; i < valid.size(); ++i) {
    const char c = valid[i];
    // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are well-formed UTF-8 but not XML characters.
    if (c == '\xEF' && i + 2 < valid.size() && valid[i + 1] == '\xBF' &&
        (valid[i + 2] == '\xBE' || valid[i + 2] == '\xBF')) {
      out += "\xEF\xBF\xBD";
      i += 2;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out.push_back(c);
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to write these characters
        } else {
          out.push_back(c);
        }
    }
  }
}

std::string Escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendEscaped(out, text);
  return out;
}

std::string TruncateChars(std::string_view text, size_t max_chars) {
  if (max_chars == 0) return {};
  size_t chars = 0;
  size_t cut = 0;  // byte offset after the (max_chars - 1)-th character
  for (size_t i = 0; i < text.size(); ++i) {
    // A character starts at every byte that is not a continuation byte (10xxxxxx).
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    ++chars;
    if (chars == max_chars) cut = i;
    if (chars > max_chars) return std::string(text.substr(0, cut)) + "\xE2\x80\xA6";
  }
  return std::string(text);
}

}  // namespace verdict::reports
