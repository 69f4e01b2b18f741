#include "load/input_request.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

namespace load {
namespace {

// Where a top-level member's value lies in the line: [begin, end).
struct ValueSpan {
  size_t begin = 0;
  size_t end = 0;
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Index one past the JSON string that opens at `at` (a '"'), or npos if it never closes.
size_t SkipString(std::string_view s, size_t at) {
  for (size_t i = at + 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Index one past the value that starts at `at` (a string, object, array or scalar).
size_t SkipValue(std::string_view s, size_t at) {
  if (at >= s.size()) return std::string_view::npos;
  if (s[at] == '"') return SkipString(s, at);
  if (s[at] == '{' || s[at] == '[') {
    int depth = 0;
    for (size_t i = at; i < s.size(); ++i) {
      if (s[i] == '"') {
        i = SkipString(s, i);
        if (i == std::string_view::npos) return i;
        --i;
      } else if (s[i] == '{' || s[i] == '[') {
        ++depth;
      } else if ((s[i] == '}' || s[i] == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return std::string_view::npos;
  }
  size_t i = at;
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !IsSpace(s[i])) ++i;
  return i;
}

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i;
}

// The value of the object's own member `key`, if the line is an object that has it.
std::optional<ValueSpan> FindMember(std::string_view s, std::string_view key) {
  size_t i = SkipSpace(s, 0);
  if (i >= s.size() || s[i] != '{') return std::nullopt;
  i = SkipSpace(s, i + 1);
  while (i < s.size() && s[i] == '"') {
    const size_t key_end = SkipString(s, i);
    if (key_end == std::string_view::npos) return std::nullopt;
    const std::string_view name = s.substr(i + 1, key_end - i - 2);
    i = SkipSpace(s, key_end);
    if (i >= s.size() || s[i] != ':') return std::nullopt;
    const size_t value = SkipSpace(s, i + 1);
    const size_t value_end = SkipValue(s, value);
    if (value_end == std::string_view::npos) return std::nullopt;
    if (name == key) return ValueSpan{value, value_end};
    i = SkipSpace(s, value_end);
    if (i < s.size() && s[i] == ',') i = SkipSpace(s, i + 1);
  }
  return std::nullopt;
}

}  // namespace

InputRequest MakeInputRequest(std::string_view line, uint64_t round, std::string_view klass,
                              int64_t class_deadline_us) {
  InputRequest out;
  out.body = std::string(line);
  out.deadline_us = class_deadline_us;

  if (std::optional<ValueSpan> deadline = FindMember(out.body, "deadline_ms")) {
    int64_t ms = 0;
    const char* first = out.body.data() + deadline->begin;
    const char* last = out.body.data() + deadline->end;
    // The engine takes a 32-bit deadline_ms; anything else it refuses, so it changes nothing.
    if (std::from_chars(first, last, ms).ptr == last && ms > 0 &&
        ms <= std::numeric_limits<int32_t>::max()) {
      out.deadline_us = std::min(out.deadline_us, ms * 1000);
    }
  }
  // The id's suffix goes in before the priority is touched: each edit finds its member anew.
  if (round > 0) {
    std::optional<ValueSpan> id = FindMember(out.body, "transaction_id");
    if (id && id->end - id->begin >= 2 && out.body[id->begin] == '"') {
      out.body.insert(id->end - 1, "-r" + std::to_string(round));
    }
  }
  const std::string quoted = "\"" + std::string(klass) + "\"";
  if (std::optional<ValueSpan> priority = FindMember(out.body, "priority")) {
    out.body.replace(priority->begin, priority->end - priority->begin, quoted);
  } else {
    // Only into an object (a line that is none is sent as it is, for the engine to refuse).
    const size_t open = SkipSpace(out.body, 0);
    if (open < out.body.size() && out.body[open] == '{') {
      const size_t next = SkipSpace(out.body, open + 1);
      const bool empty = next < out.body.size() && out.body[next] == '}';
      out.body.insert(open + 1, "\"priority\":" + quoted + (empty ? "" : ","));
    }
  }
  return out;
}

}  // namespace load
