#include "api/decision_json.h"

#include "common/utf8.h"

namespace verdict {

void WriteErrorJson(const Status& status, JsonWriter& w) {
  WriteErrorJson(StatusCodeName(status.code()), status.message(), status.field(), w);
}

void WriteErrorJson(std::string_view code, std::string_view message, std::string_view field,
                    JsonWriter& w) {
  w.BeginObject().Key("error").BeginObject();
  w.Key("code").String(code);
  // Both may quote the request (a query parameter, a path, a key cut short): kept valid UTF-8,
  // so that the answer is JSON whatever the request held.
  w.Key("message").String(ReplaceInvalidUtf8(message));
  if (!field.empty()) w.Key("field").String(ReplaceInvalidUtf8(field));
  w.EndObject().EndObject();
}

std::string ErrorToJson(const Status& status) {
  std::string out;
  JsonWriter w(out);
  WriteErrorJson(status, w);
  return out;
}

}  // namespace verdict
