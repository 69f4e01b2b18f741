// How the HTTP API answers an error (DESIGN §7): the HTTP status and the "code" of the JSON
// error body, from a Status's canonical code and reason, and the answers only HTTP has (about a
// request's framing rather than an operation's outcome). Stateless; thread-safe.
#pragma once

#include <string_view>

#include "common/status.h"

namespace verdict {

struct HttpError {
  int status;             // e.g. 400
  std::string_view code;  // e.g. "invalid_argument"; static storage
};

// The answer to a non-ok `status`: by its code (400, 401, 403, 404, 409, 429, 500, 503, 504...),
// or by its reason where it has one (kInputTooLarge: 413, kUnsupportedMediaType: 415).
HttpError HttpErrorOf(const Status& status);
inline int HttpStatusOf(const Status& status) { return HttpErrorOf(status).status; }

// Answers only HTTP has. Each is given with a canonical Status (the code noted) that says the
// same to a reader of logs; ErrorResponse(answer, status) writes them.
inline constexpr HttpError kHttpMethodNotAllowed{405, "method_not_allowed"};  // kUnimplemented
inline constexpr HttpError kHttpPayloadTooLarge{413, "payload_too_large"};    // InputTooLarge
inline constexpr HttpError kHttpUnsupportedMediaType{415, "unsupported_media_type"};
// Headers over the server's limit. Its body code has always been "invalid_argument", and
// clients may rely on it.
inline constexpr HttpError kHttpHeaderFieldsTooLarge{431, "invalid_argument"};

}  // namespace verdict
