// JSON encoding of error bodies exactly as DESIGN.md §7 specifies, and (through
// core/decision_json.h) of Decisions. Stateless; thread-safe.
#pragma once

#include <string>

#include "common/json_writer.h"
#include "common/status.h"
#include "core/decision.h"
#include "core/decision_json.h"

namespace verdict {

// {"error": {"code": "invalid_argument", "message": "...", "field": "amount"}}; "field" is
// omitted when the error concerns no single field.
void WriteErrorJson(const Status& status, JsonWriter& writer);
std::string ErrorToJson(const Status& status);

}  // namespace verdict
