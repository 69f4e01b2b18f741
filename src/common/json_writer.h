// JsonWriter: appends compact JSON to a caller-owned std::string with correct string
// escaping and shortest round-trip doubles. Not thread-safe; one writer per output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace verdict {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // Writes `"name":`; the next call writes the value.
  JsonWriter& Key(std::string_view name);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  // Shortest text that reads back to the same double; NaN and infinities become null, which
  // JSON has no other way to say.
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // Appends already-serialized JSON as one value (the caller vouches it is valid).
  JsonWriter& Raw(std::string_view json);

 private:
  void Separate();

  std::string& out_;
  // True when the next value or key at the current level needs a leading comma.
  bool need_comma_ = false;
};

// Appends `value` as a JSON string literal (with quotes) to `out`.
void AppendJsonString(std::string& out, std::string_view value);

}  // namespace verdict
