// What verdict-load sends for one line of --input, and the deadline its answer is judged by.
// The mix picks each request's class and the answer is counted under that class, so the line's
// own top-level "priority" is replaced by it (or added); a top-level "deadline_ms" of the line is
// kept, and when shorter than the class's deadline it is the one `within_deadline` uses, as the
// engine does. When the input wraps around, "-r<round>" is appended to the line's
// transaction_id so that no id repeats (a repeat would be an idempotent replay, not a decision),
// and, when the input is a period of a population's history (--population), its "timestamp" is
// moved forward by round × that period, so that accounts live on rather than go back in time.
// Only the object's own keys are looked at, never keys of nested objects. Each line is scanned
// once, at start-up (InputLine); a request is then made from it with at most two edits.
// Value types; an InputLine is immutable after construction and may be shared across threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace load {

struct InputRequest {
  std::string body;
  int64_t deadline_us = 0;
};

class InputLine {
 public:
  explicit InputLine(std::string text);

  // `period_us`: how far a round moves the line's timestamp (0: not at all).
  InputRequest MakeRequest(uint64_t round, std::string_view klass, int64_t class_deadline_us,
                           int64_t period_us = 0) const;
  const std::string& text() const { return text_; }

  // Where a top-level member's value lies in the line: [begin, end).
  struct ValueSpan {
    size_t begin = 0;
    size_t end = 0;
  };

 private:
  std::string text_;
  std::optional<ValueSpan> transaction_id_;  // a string value only
  std::optional<ValueSpan> priority_;
  std::optional<ValueSpan> timestamp_;  // an RFC 3339 string value only
  int64_t timestamp_us_ = 0;
  int64_t deadline_ms_ = 0;  // 0: none usable (absent, or not an int32 above 0)
  // Where "priority" goes in when the line has none: after the object's '{' (npos: not an
  // object), and whether the object is empty (no comma after it then).
  size_t object_open_ = std::string::npos;
  bool empty_object_ = false;
};

}  // namespace load
