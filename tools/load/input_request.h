// What verdict-load sends for one line of --input, and the deadline its answer is judged by.
// The mix picks each request's class and the answer is counted under that class, so the line's
// own top-level "priority" is replaced by it (or added); a top-level "deadline_ms" of the line is
// kept, and when shorter than the class's deadline it is the one `within_deadline` uses, as the
// engine does. When the input wraps around, "-r<round>" is appended to the line's
// transaction_id so that no id repeats (a repeat would be an idempotent replay, not a decision).
// Only the object's own keys are looked at, never keys of nested objects. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace load {

struct InputRequest {
  std::string body;
  int64_t deadline_us = 0;
};

InputRequest MakeInputRequest(std::string_view line, uint64_t round, std::string_view klass,
                              int64_t class_deadline_us);

}  // namespace load
