#include "api/json_fields.h"

#include <charconv>

namespace verdict::json_fields {

using simdjson::dom::element;
using simdjson::dom::element_type;

const char* TypeName(element_type type) {
  switch (type) {
    case element_type::ARRAY:
      return "an array";
    case element_type::OBJECT:
      return "an object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return "a number";
    case element_type::STRING:
      return "a string";
    case element_type::BOOL:
      return "a boolean";
    case element_type::NULL_VALUE:
      return "null";
  }
  return "a value";
}

Status WrongType(const std::string& field, const char* expected, element value) {
  return InvalidArgument(field + " must be " + expected + ", not " + TypeName(value.type()), field);
}

// Visible ASCII only: identifiers travel into logs, keys and other systems' fields.
bool IsVisibleAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x21 || c > 0x7E) return false;
  }
  return true;
}

namespace {

bool HasControlCharacter(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

// Counts code points, not bytes: limits are on what a person sees. simdjson has already
// validated the UTF-8.
size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

Result<std::string_view> GetString(element value, const std::string& field) {
  std::string_view s;
  if (value.get_string().get(s) != simdjson::SUCCESS) return WrongType(field, "a string", value);
  return s;
}

Result<std::string> GetIdentifier(element value, const std::string& field, size_t max_length) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view s, GetString(value, field));
  if (s.empty()) return InvalidArgument(field + " must not be empty", field);
  if (s.size() > max_length) {
    return InvalidArgument(field + " is longer than " + std::to_string(max_length) + " characters",
                           field);
  }
  if (!IsVisibleAscii(s)) {
    return InvalidArgument(field + " may contain only visible ASCII characters, no spaces", field);
  }
  return std::string(s);
}

Result<std::string> GetText(element value, const std::string& field, size_t max_length) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view s, GetString(value, field));
  if (Utf8Length(s) > max_length) {
    return InvalidArgument(field + " is longer than " + std::to_string(max_length) + " characters",
                           field);
  }
  if (HasControlCharacter(s)) {
    return InvalidArgument(field + " contains control characters", field);
  }
  return std::string(s);
}

Result<std::string> GetCode(element value, const std::string& field, size_t max_length) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view s, GetString(value, field));
  if (s.empty() || s.size() > max_length) {
    return InvalidArgument(field + " must be 1 to " + std::to_string(max_length) + " characters",
                           field);
  }
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
      return InvalidArgument(field + " may contain only a-z, 0-9, '_' and '-'", field);
    }
  }
  return std::string(s);
}

// The amount as decimal text, from a JSON string or number. A number is rendered as the
// shortest text that reads back to the same double, which is what the sender wrote for any
// amount a double can hold exactly enough (≤ 15 significant digits).
Result<std::string> AmountText(element value, const std::string& field) {
  switch (value.type()) {
    case element_type::STRING:
      return std::string(value.get_string().value_unsafe());
    case element_type::INT64:
      return std::to_string(value.get_int64().value_unsafe());
    case element_type::UINT64:
      return std::to_string(value.get_uint64().value_unsafe());
    case element_type::DOUBLE: {
      char buf[32];
      double d = value.get_double().value_unsafe();
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::general);
      return std::string(buf, end);
    }
    default:
      return WrongType(field, "a decimal string or a number", value);
  }
}

}  // namespace verdict::json_fields
