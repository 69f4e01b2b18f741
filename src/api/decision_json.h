// JSON encoding of error bodies exactly as DESIGN.md §7 specifies, and (through
// core/decision_json.h) of Decisions. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/json_writer.h"
#include "common/status.h"
#include "core/decision.h"
#include "core/decision_json.h"

namespace verdict {

// {"error": {"code": "invalid_argument", "message": "...", "field": "amount"}}; "field" is
// omitted when the error concerns no single field.
void WriteErrorJson(const Status& status, JsonWriter& writer);
// The same from its parts; every error body is written by this one (JsonErrorResponse too).
void WriteErrorJson(std::string_view code, std::string_view message, std::string_view field,
                    JsonWriter& writer);
std::string ErrorToJson(const Status& status);

}  // namespace verdict
