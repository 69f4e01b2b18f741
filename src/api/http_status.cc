#include "api/http_status.h"

namespace verdict {
namespace {

int HttpStatusOfCode(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kOutOfRange:
      return 400;
    case StatusCode::kUnauthenticated:
      return 401;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
      return 409;
    case StatusCode::kResourceExhausted:
      return 429;
    case StatusCode::kInternal:
    case StatusCode::kDataLoss:
      return 500;
    case StatusCode::kUnimplemented:
      return 501;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
  }
  return 500;
}

}  // namespace

HttpError HttpErrorOf(const Status& status) {
  switch (status.reason()) {
    case StatusReason::kInputTooLarge:
      return kHttpPayloadTooLarge;
    case StatusReason::kUnsupportedMediaType:
      return kHttpUnsupportedMediaType;
    case StatusReason::kNone:
      break;
  }
  return HttpError{HttpStatusOfCode(status.code()), StatusCodeName(status.code())};
}

}  // namespace verdict
