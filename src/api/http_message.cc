#include "api/http_message.h"

#include "common/json_writer.h"
#include "common/utf8.h"

namespace verdict {

std::string_view HttpRequest::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return {};
}

std::string_view HttpRequest::PathParam(std::string_view name) const {
  for (const auto& [key, value] : path_params) {
    if (key == name) return value;
  }
  return {};
}

HttpResponse JsonErrorResponse(int http_status, std::string_view code, std::string_view message,
                               std::string_view field) {
  HttpResponse response;
  response.status = http_status;
  JsonWriter w(response.body);
  w.BeginObject().Key("error").BeginObject();
  // The message may quote the request (a path, an id): kept valid UTF-8 (common/utf8.h).
  w.Key("code").String(code).Key("message").String(ReplaceInvalidUtf8(message));
  if (!field.empty()) w.Key("field").String(ReplaceInvalidUtf8(field));
  w.EndObject().EndObject();
  return response;
}

}  // namespace verdict
