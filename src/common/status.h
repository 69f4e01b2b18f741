// Status: the outcome of an operation that can fail, with a code, a message and the input
// field it concerns. Value type, cheap to move; immutable once built, so thread-safe to share.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace verdict {

// Each code maps to exactly one HTTP status and one gRPC status (see HttpStatusOf/GrpcCodeOf).
enum class StatusCode {
  kOk,
  kInvalidArgument,       // 400, gRPC INVALID_ARGUMENT
  kFailedPrecondition,    // 400, gRPC FAILED_PRECONDITION
  kUnauthenticated,       // 401, gRPC UNAUTHENTICATED
  kPermissionDenied,      // 403, gRPC PERMISSION_DENIED
  kNotFound,              // 404, gRPC NOT_FOUND
  kMethodNotAllowed,      // 405, gRPC UNIMPLEMENTED
  kAlreadyExists,         // 409, gRPC ALREADY_EXISTS
  kPayloadTooLarge,       // 413, gRPC OUT_OF_RANGE
  kUnsupportedMediaType,  // 415, gRPC INVALID_ARGUMENT
  kResourceExhausted,     // 429, gRPC RESOURCE_EXHAUSTED
  kInternal,              // 500, gRPC INTERNAL
  kUnavailable,           // 503, gRPC UNAVAILABLE
  kDeadlineExceeded,      // 504, gRPC DEADLINE_EXCEEDED
};

// The snake_case name used in JSON error bodies, e.g. "invalid_argument".
std::string_view StatusCodeName(StatusCode code);
int HttpStatusOf(StatusCode code);
int GrpcCodeOf(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, std::string field = {})
      : code_(code), message_(std::move(message)), field_(std::move(field)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The input field the error concerns ("amount", "sender.account", "transactions[3].amount"),
  // empty when it concerns no single field.
  const std::string& field() const { return field_; }

  // Returns a copy whose field is `prefix` + "." + field (or `prefix` when there was none).
  Status WithFieldPrefix(std::string_view prefix) const;
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string field_;
};

inline Status InvalidArgument(std::string message, std::string field = {}) {
  return Status(StatusCode::kInvalidArgument, std::move(message), std::move(field));
}
inline Status NotFound(std::string message) {
  return Status(StatusCode::kNotFound, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}
inline Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}

}  // namespace verdict

// Returns early from the enclosing function when `expr` yields a non-ok Status.
#define VERDICT_RETURN_IF_ERROR(expr)           \
  do {                                          \
    ::verdict::Status verdict_status_ = (expr); \
    if (!verdict_status_.ok()) {                \
      return verdict_status_;                   \
    }                                           \
  } while (false)
