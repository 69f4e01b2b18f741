// Status: the outcome of an operation that can fail, with a code, a message and the input
// field it concerns. Value type, cheap to move; immutable once built, so thread-safe to share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace verdict {

// The canonical codes (absl::StatusCode, gRPC's status codes), with their gRPC numbers; only
// those the code uses. How the HTTP API answers each is api/http_status.h's business.
enum class StatusCode {
  kOk = 0,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,  // stored data that cannot be read back: the server's fault, not the caller's
  kUnauthenticated = 16,
};

// A finer cause than the code, for the few errors whose answer depends on it (as
// google.rpc.ErrorInfo's reason refines a canonical code). Protocol-neutral: the component that
// finds the error says what it is, the API layer decides how to answer it.
enum class StatusReason : uint8_t {
  kNone,
  kInputTooLarge,         // with kOutOfRange: the input exceeds a configured size limit
  kUnsupportedMediaType,  // with kInvalidArgument: the input's declared media type is not read
};

// The snake_case name of a code, e.g. "invalid_argument".
std::string_view StatusCodeName(StatusCode code);
int GrpcCodeOf(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, std::string field = {},
         StatusReason reason = StatusReason::kNone)
      : code_(code), reason_(reason), message_(std::move(message)), field_(std::move(field)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  StatusReason reason() const { return reason_; }
  const std::string& message() const { return message_; }
  // The input field the error concerns ("amount", "sender.account", "transactions[3].amount"),
  // empty when it concerns no single field.
  const std::string& field() const { return field_; }

  // Returns a copy whose field is `prefix` + "." + field (or `prefix` when there was none).
  Status WithFieldPrefix(std::string_view prefix) const;
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  StatusReason reason_ = StatusReason::kNone;
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
inline Status DataLoss(std::string message) {
  return Status(StatusCode::kDataLoss, std::move(message));
}
// An input larger than a configured limit (a body, a document, one message of several).
inline Status InputTooLarge(std::string message, std::string field = {}) {
  return Status(StatusCode::kOutOfRange, std::move(message), std::move(field),
                StatusReason::kInputTooLarge);
}
// An input whose declared media type (e.g. a Content-Type) names a format not read there.
inline Status UnsupportedMediaType(std::string message, std::string field = {}) {
  return Status(StatusCode::kInvalidArgument, std::move(message), std::move(field),
                StatusReason::kUnsupportedMediaType);
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
