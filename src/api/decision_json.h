// JSON encoding of Decisions and error bodies exactly as DESIGN.md §7 specifies.
// Stateless; thread-safe.
#pragma once

#include <string>

#include "common/json_writer.h"
#include "common/status.h"
#include "core/decision.h"

namespace verdict {

void WriteDecisionJson(const Decision& decision, JsonWriter& writer);
std::string DecisionToJson(const Decision& decision);

// {"error": {"code": "invalid_argument", "message": "...", "field": "amount"}}; "field" is
// omitted when the error concerns no single field.
void WriteErrorJson(const Status& status, JsonWriter& writer);
std::string ErrorToJson(const Status& status);

}  // namespace verdict
