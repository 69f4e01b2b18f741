#include "formats/iso20022_guard.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace verdict {
namespace {

size_t LineAt(std::string_view xml, size_t pos) {
  return 1 + static_cast<size_t>(
                 std::count(xml.begin(), xml.begin() + std::min(pos, xml.size()), '\n'));
}

Status Refuse(std::string_view xml, size_t pos, const std::string& what) {
  return InvalidArgument("XML line " + std::to_string(LineAt(xml, pos)) + ": " + what);
}

bool IsXmlChar(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

// The character data byte at xml[pos] (text or an attribute value). A NUL, raw or as a character
// reference such as "&#0;", would end every value read as a C string there ("5&#0;000000.00"
// read as 5), so no later check could see it. A reference to any other character that is not
// XML 1.0 (§2.2: other control characters, surrogates, beyond U+10FFFF) is refused too. Other
// raw control characters are left to the field checks, which name the transaction.
Status CheckCharacter(std::string_view xml, size_t pos) {
  const auto byte = static_cast<uint8_t>(xml[pos]);
  if (byte == 0) return Refuse(xml, pos, "a NUL character is not XML");
  if (byte != '&' || pos + 1 >= xml.size() || xml[pos + 1] != '#') return Status::Ok();
  const bool hex = pos + 2 < xml.size() && xml[pos + 2] == 'x';
  uint32_t code = 0;
  size_t j = pos + (hex ? 3 : 2);
  size_t digits = 0;
  for (; j < xml.size() && xml[j] != ';'; ++j, ++digits) {
    const char c = xml[j];
    int value;
    if (c >= '0' && c <= '9') {
      value = c - '0';
    } else if (hex && c >= 'a' && c <= 'f') {
      value = c - 'a' + 10;
    } else if (hex && c >= 'A' && c <= 'F') {
      value = c - 'A' + 10;
    } else {
      return Refuse(xml, pos, "malformed character reference");
    }
    if (digits >= 8) return Refuse(xml, pos, "character reference out of range");
    code = code * (hex ? 16 : 10) + static_cast<uint32_t>(value);
  }
  if (j >= xml.size() || digits == 0) return Refuse(xml, pos, "malformed character reference");
  if (!IsXmlChar(code)) {
    return Refuse(xml, pos, "character reference to " + std::to_string(code) + " is not XML");
  }
  return Status::Ok();
}

}  // namespace

Status ScanXml(std::string_view xml, const XmlLimits& limits) {
  if (xml.size() > limits.max_bytes) {
    return InputTooLarge("XML message has " + std::to_string(xml.size()) + " bytes; at most " +
                         std::to_string(limits.max_bytes) + " are accepted");
  }
  const std::string text_limit = std::to_string(limits.max_text_bytes);
  int depth = 0;
  size_t text_run = 0;  // bytes of character data since the last tag
  size_t i = 0;
  const size_t n = xml.size();
  auto skip_to = [&](std::string_view end, size_t from) -> size_t {
    const size_t at = xml.find(end, from);
    return at == std::string_view::npos ? at : at + end.size();
  };
  while (i < n) {
    if (xml[i] != '<') {
      if (++text_run > limits.max_text_bytes) {
        return Refuse(xml, i, "text longer than " + text_limit + " bytes");
      }
      VERDICT_RETURN_IF_ERROR(CheckCharacter(xml, i));
      ++i;
      continue;
    }
    const std::string_view rest = xml.substr(i);
    if (rest.starts_with("<?")) {
      const size_t end = skip_to("?>", i + 2);
      if (end == std::string_view::npos)
        return Refuse(xml, i, "unterminated processing instruction");
      i = end;
    } else if (rest.starts_with("<!--")) {
      const size_t end = skip_to("-->", i + 4);
      if (end == std::string_view::npos) return Refuse(xml, i, "unterminated comment");
      i = end;
    } else if (rest.starts_with("<![CDATA[")) {
      const size_t end = skip_to("]]>", i + 9);
      if (end == std::string_view::npos) return Refuse(xml, i, "unterminated CDATA section");
      text_run += end - i - 12;
      if (text_run > limits.max_text_bytes) {
        return Refuse(xml, i, "text longer than " + text_limit + " bytes");
      }
      i = end;
      continue;  // CDATA joins the surrounding text run
    } else if (rest.starts_with("<!")) {
      return Refuse(xml, i, "DOCTYPE and entity declarations are not accepted in payment messages");
    } else if (rest.starts_with("</")) {
      const size_t end = xml.find('>', i);
      if (end == std::string_view::npos) return Refuse(xml, i, "unterminated end tag");
      --depth;
      i = end + 1;
    } else {
      // A start tag: its attributes may hold '>' or '/' inside quotes.
      if (++depth > limits.max_depth) {
        return Refuse(xml, i, "elements nested deeper than " + std::to_string(limits.max_depth));
      }
      size_t j = i + 1;
      bool closed = false;
      while (j < n) {
        const char c = xml[j];
        if (c == '"' || c == '\'') {
          const size_t end = xml.find(c, j + 1);
          if (end == std::string_view::npos) return Refuse(xml, j, "unterminated attribute value");
          if (end - j - 1 > limits.max_text_bytes) {
            return Refuse(xml, j, "attribute value longer than " + text_limit + " bytes");
          }
          for (size_t k = j + 1; k < end; ++k) VERDICT_RETURN_IF_ERROR(CheckCharacter(xml, k));
          j = end + 1;
        } else if (c == '>') {
          closed = true;
          if (xml[j - 1] == '/') --depth;  // <Empty/>
          ++j;
          break;
        } else if (c == '<') {
          break;
        } else {
          ++j;
        }
      }
      if (!closed) return Refuse(xml, i, "unterminated start tag");
      i = j;
    }
    text_run = 0;
  }
  return Status::Ok();
}

}  // namespace verdict
