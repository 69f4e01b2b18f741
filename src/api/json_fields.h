// Typed readers for the fields of a JSON request body (simdjson DOM): each checks the value's
// type, length and characters and returns an InvalidArgument naming the field. Stateless;
// thread-safe.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict::json_fields {

// "an object", "a string", ...: what the sender gave, for messages.
const char* TypeName(simdjson::dom::element_type type);
Status WrongType(const std::string& field, const char* expected, simdjson::dom::element value);

// Visible ASCII only, no spaces.
bool IsVisibleAscii(std::string_view s);

Result<std::string_view> GetString(simdjson::dom::element value, const std::string& field);
// Non-empty, at most `max_length` bytes, visible ASCII only (identifiers travel into logs,
// keys and other systems' fields).
Result<std::string> GetIdentifier(simdjson::dom::element value, const std::string& field,
                                  size_t max_length);
// Free text: at most `max_length` code points, no control characters.
Result<std::string> GetText(simdjson::dom::element value, const std::string& field,
                            size_t max_length);
// 1..max_length characters of a-z, 0-9, '_' and '-'.
Result<std::string> GetCode(simdjson::dom::element value, const std::string& field,
                            size_t max_length);
// The value of a decimal amount as text, from a JSON string or number.
Result<std::string> AmountText(simdjson::dom::element value, const std::string& field);

}  // namespace verdict::json_fields
