#include "api/decision_json.h"

namespace verdict {

void WriteErrorJson(const Status& status, JsonWriter& w) {
  w.BeginObject().Key("error").BeginObject();
  w.Key("code").String(StatusCodeName(status.code()));
  w.Key("message").String(status.message());
  if (!status.field().empty()) w.Key("field").String(status.field());
  w.EndObject().EndObject();
}

std::string ErrorToJson(const Status& status) {
  std::string out;
  JsonWriter w(out);
  WriteErrorJson(status, w);
  return out;
}

}  // namespace verdict
