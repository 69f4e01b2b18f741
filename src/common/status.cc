#include "common/status.h"

namespace verdict {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kDeadlineExceeded:
      return "deadline_exceeded";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kAlreadyExists:
      return "already_exists";
    case StatusCode::kPermissionDenied:
      return "permission_denied";
    case StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case StatusCode::kOutOfRange:
      return "out_of_range";
    case StatusCode::kUnimplemented:
      return "unimplemented";
    case StatusCode::kInternal:
      return "internal";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kDataLoss:
      return "data_loss";
    case StatusCode::kUnauthenticated:
      return "unauthenticated";
  }
  return "unknown";
}

// The enumerators carry gRPC's numbers.
int GrpcCodeOf(StatusCode code) { return static_cast<int>(code); }

Status Status::WithFieldPrefix(std::string_view prefix) const {
  std::string field(prefix);
  if (!field_.empty()) {
    if (field_.front() != '[') field += '.';
    field += field_;
  }
  return Status(code_, message_, std::move(field), reason_);
}

std::string Status::ToString() const {
  std::string out(StatusCodeName(code_));
  if (!field_.empty()) out += " (" + field_ + ")";
  if (!message_.empty()) out += ": " + message_;
  return out;
}

}  // namespace verdict
