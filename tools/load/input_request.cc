#include "load/input_request.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <utility>

#include "common/rfc3339.h"

namespace load {
namespace {

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

// Calls `member(name, value)` for each of the object's own members, in order, as far as the line
// can be read (a torn or malformed line ends the scan where it breaks). Nothing if the line is
// not an object. Returns the index just past the object's '{', or npos.
template <typename OnMember>
size_t ScanMembers(std::string_view s, OnMember member) {
  size_t i = SkipSpace(s, 0);
  if (i >= s.size() || s[i] != '{') return std::string_view::npos;
  const size_t open = i;
  i = SkipSpace(s, i + 1);
  while (i < s.size() && s[i] == '"') {
    const size_t key_end = SkipString(s, i);
    if (key_end == std::string_view::npos) break;
    const std::string_view name = s.substr(i + 1, key_end - i - 2);
    i = SkipSpace(s, key_end);
    if (i >= s.size() || s[i] != ':') break;
    const size_t value = SkipSpace(s, i + 1);
    const size_t value_end = SkipValue(s, value);
    if (value_end == std::string_view::npos) break;
    member(name, InputLine::ValueSpan{value, value_end});
    i = SkipSpace(s, value_end);
    if (i < s.size() && s[i] == ',') i = SkipSpace(s, i + 1);
  }
  return open;
}

}  // namespace

InputLine::InputLine(std::string text) : text_(std::move(text)) {
  const std::string_view s = text_;
  object_open_ = ScanMembers(s, [&](std::string_view name, ValueSpan value) {
    if (name == "transaction_id" && !transaction_id_) {
      if (value.end - value.begin >= 2 && s[value.begin] == '"') transaction_id_ = value;
    } else if (name == "timestamp" && !timestamp_) {
      if (value.end - value.begin >= 2 && s[value.begin] == '"') {
        auto parsed =
            verdict::ParseRfc3339Micros(s.substr(value.begin + 1, value.end - value.begin - 2));
        if (parsed.ok()) {
          timestamp_ = value;
          timestamp_us_ = *parsed;
        }
      }
    } else if (name == "priority" && !priority_) {
      priority_ = value;
    } else if (name == "deadline_ms" && deadline_ms_ == 0) {
      int64_t ms = 0;
      const char* first = s.data() + value.begin;
      const char* last = s.data() + value.end;
      // The engine takes a 32-bit deadline_ms; anything else it refuses, so it changes nothing.
      if (std::from_chars(first, last, ms).ptr == last && ms > 0 &&
          ms <= std::numeric_limits<int32_t>::max()) {
        deadline_ms_ = ms;
      }
    }
  });
  if (object_open_ != std::string::npos) {
    const size_t next = SkipSpace(s, object_open_ + 1);
    empty_object_ = next < s.size() && s[next] == '}';
  }
}

InputRequest InputLine::MakeRequest(uint64_t round, std::string_view klass,
                                    int64_t class_deadline_us, int64_t period_us) const {
  InputRequest out;
  out.deadline_us = class_deadline_us;
  if (deadline_ms_ > 0) out.deadline_us = std::min(out.deadline_us, deadline_ms_ * 1000);

  // At most three edits, applied in the order of their positions in the line.
  struct Edit {
    size_t at = 0;
    size_t erase = 0;
    std::string text;
  };
  std::array<Edit, 3> edits;
  size_t n = 0;
  const std::string quoted = "\"" + std::string(klass) + "\"";
  if (priority_) {
    edits[n++] = {priority_->begin, priority_->end - priority_->begin, quoted};
  } else if (object_open_ != std::string::npos) {
    // Only into an object (a line that is none is sent as it is, for the engine to refuse).
    edits[n++] = {object_open_ + 1, 0, "\"priority\":" + quoted + (empty_object_ ? "" : ",")};
  }
  if (round > 0 && transaction_id_) {
    edits[n++] = {transaction_id_->end - 1, 0, "-r" + std::to_string(round)};
  }
  if (round > 0 && period_us > 0 && timestamp_) {
    const int64_t moved = timestamp_us_ + static_cast<int64_t>(round) * period_us;
    edits[n++] = {timestamp_->begin, timestamp_->end - timestamp_->begin,
                  "\"" + verdict::FormatRfc3339Micros(moved) + "\""};
  }
  std::sort(edits.begin(), edits.begin() + static_cast<std::ptrdiff_t>(n),
            [](const Edit& a, const Edit& b) { return a.at < b.at; });
  size_t added = 0;
  for (size_t i = 0; i < n; ++i) added += edits[i].text.size();
  out.body.reserve(text_.size() + added);
  size_t copied = 0;
  for (size_t i = 0; i < n; ++i) {
    out.body.append(text_, copied, edits[i].at - copied);
    out.body.append(edits[i].text);
    copied = edits[i].at + edits[i].erase;
  }
  out.body.append(text_, copied, std::string::npos);
  return out;
}

}  // namespace load
