// JSON encoding of a Decision exactly as DESIGN.md §7 specifies, shared by the HTTP API and
// the journal's exporter. Stateless; thread-safe.
#pragma once

#include <string>

#include "common/json_writer.h"
#include "core/decision.h"

namespace verdict {

void WriteDecisionJson(const Decision& decision, JsonWriter& writer);
std::string DecisionToJson(const Decision& decision);

}  // namespace verdict
