// Result<T>: either a value or a non-ok Status. Value type; not synchronized.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "common/status.h"

namespace verdict {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : data_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(data_).ok() && "Result built from an ok Status has no value");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(data_);
  }

  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace verdict

#define VERDICT_CONCAT_INNER(a, b) a##b
#define VERDICT_CONCAT(a, b) VERDICT_CONCAT_INNER(a, b)

// VERDICT_ASSIGN_OR_RETURN(auto x, MakeX()): binds the value or returns the Status.
#define VERDICT_ASSIGN_OR_RETURN(lhs, expr) \
  VERDICT_ASSIGN_OR_RETURN_IMPL(VERDICT_CONCAT(verdict_result_, __LINE__), lhs, expr)
// NOLINTBEGIN(bugprone-macro-parentheses): lhs is a declaration, tmp a name; neither can be
// parenthesized.
#define VERDICT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
