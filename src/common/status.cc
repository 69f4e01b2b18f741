#include "common/status.h"

namespace verdict {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case StatusCode::kUnauthenticated:
      return "unauthenticated";
    case StatusCode::kPermissionDenied:
      return "permission_denied";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kMethodNotAllowed:
      return "method_not_allowed";
    case StatusCode::kAlreadyExists:
      return "already_exists";
    case StatusCode::kPayloadTooLarge:
      return "payload_too_large";
    case StatusCode::kUnsupportedMediaType:
      return "unsupported_media_type";
    case StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case StatusCode::kInternal:
      return "internal";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kDeadlineExceeded:
      return "deadline_exceeded";
  }
  return "unknown";
}

int HttpStatusOf(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kFailedPrecondition:
      return 400;
    case StatusCode::kUnauthenticated:
      return 401;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kMethodNotAllowed:
      return 405;
    case StatusCode::kAlreadyExists:
      return 409;
    case StatusCode::kPayloadTooLarge:
      return 413;
    case StatusCode::kUnsupportedMediaType:
      return 415;
    case StatusCode::kResourceExhausted:
      return 429;
    case StatusCode::kInternal:
      return 500;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
  }
  return 500;
}

int GrpcCodeOf(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kInvalidArgument:
      return 3;
    case StatusCode::kFailedPrecondition:
      return 9;
    case StatusCode::kUnauthenticated:
      return 16;
    case StatusCode::kPermissionDenied:
      return 7;
    case StatusCode::kNotFound:
      return 5;
    case StatusCode::kMethodNotAllowed:
      return 12;
    case StatusCode::kAlreadyExists:
      return 6;
    case StatusCode::kPayloadTooLarge:
      return 11;
    case StatusCode::kUnsupportedMediaType:
      return 3;
    case StatusCode::kResourceExhausted:
      return 8;
    case StatusCode::kInternal:
      return 13;
    case StatusCode::kUnavailable:
      return 14;
    case StatusCode::kDeadlineExceeded:
      return 4;
  }
  return 2;
}

Status Status::WithFieldPrefix(std::string_view prefix) const {
  std::string field(prefix);
  if (!field_.empty()) {
    if (field_.front() != '[') field += '.';
    field += field_;
  }
  return Status(code_, message_, std::move(field));
}

std::string Status::ToString() const {
  std::string out(StatusCodeName(code_));
  if (!field_.empty()) out += " (" + field_ + ")";
  if (!message_.empty()) out += ": " + message_;
  return out;
}

}  // namespace verdict
