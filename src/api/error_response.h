// The one writer of error bodies and responses (DESIGN §7):
//   {"error": {"code": "invalid_argument", "message": "...", "field": "amount"}}
// with "field" omitted when the error concerns no single field. Every route file, the router and
// the server answer errors through it, so that each body has the same shape and is valid JSON
// (message and field may quote the request: they are kept valid UTF-8 here). Stateless;
// thread-safe.
#pragma once

#include <functional>
#include <string>

#include "api/http_message.h"
#include "api/http_status.h"
#include "common/json_writer.h"
#include "common/status.h"

namespace verdict {

// Members a route adds to the error object after "field" (e.g. a policy bundle's diagnostics).
using ErrorMembers = std::function<void(JsonWriter&)>;

// The response for a non-ok `status`, answered as HttpErrorOf maps it.
HttpResponse ErrorResponse(const Status& status, const ErrorMembers& more = {});
// The response for an answer only HTTP has (405, 413, 415, 431), with `status` as its message
// and field.
HttpResponse ErrorResponse(HttpError answer, const Status& status);

// The error object alone, e.g. as one item of a batch answer.
void WriteErrorJson(const Status& status, JsonWriter& writer);
std::string ErrorToJson(const Status& status);

}  // namespace verdict
