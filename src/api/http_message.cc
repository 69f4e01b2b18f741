#include "api/http_message.h"

#include "api/decision_json.h"
#include "common/json_writer.h"

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
  WriteErrorJson(code, message, field, w);
  return response;
}

}  // namespace verdict
