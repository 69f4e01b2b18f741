// The case's JSON form: what the routes answer and what the registry stores (one shape, so a
// stored case reads back exactly). Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "cases/case.h"
#include "common/json_writer.h"
#include "common/result.h"

namespace verdict::cases {

// `full`: with comments and history (a case view); otherwise the queue summary.
void WriteCaseJson(const Case& c, bool full, JsonWriter& w);
std::string CaseToJson(const Case& c);  // full
// Reads what CaseToJson wrote; a field of the wrong type or an unknown status is an error.
Result<Case> CaseFromJson(std::string_view json);

}  // namespace verdict::cases
