#include "api/error_response.h"

#include "common/utf8.h"

namespace verdict {
namespace {

void WriteError(std::string_view code, const Status& status, const ErrorMembers& more,
                JsonWriter& w) {
  w.BeginObject().Key("error").BeginObject();
  w.Key("code").String(code);
  // Both may quote the request (a query parameter, a path, a key cut short): kept valid UTF-8,
  // so that the answer is JSON whatever the request held.
  w.Key("message").String(ReplaceInvalidUtf8(status.message()));
  if (!status.field().empty()) w.Key("field").String(ReplaceInvalidUtf8(status.field()));
  if (more) more(w);
  w.EndObject().EndObject();
}

HttpResponse Respond(HttpError answer, const Status& status, const ErrorMembers& more) {
  HttpResponse response;
  response.status = answer.status;
  JsonWriter w(response.body);
  WriteError(answer.code, status, more, w);
  return response;
}

}  // namespace

HttpResponse ErrorResponse(const Status& status, const ErrorMembers& more) {
  return Respond(HttpErrorOf(status), status, more);
}

HttpResponse ErrorResponse(HttpError answer, const Status& status) {
  return Respond(answer, status, {});
}

void WriteErrorJson(const Status& status, JsonWriter& w) {
  WriteError(HttpErrorOf(status).code, status, {}, w);
}

std::string ErrorToJson(const Status& status) {
  std::string out;
  JsonWriter w(out);
  WriteErrorJson(status, w);
  return out;
}

}  // namespace verdict
