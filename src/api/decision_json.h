// Decisions in the API's JSON exactly as DESIGN.md §7 specifies. The encoder is core's
// (core/decision_json.h: the journal's export writes the same shape); error bodies are
// api/error_response.h's. Stateless; thread-safe.
#pragma once

#include "api/error_response.h"
#include "core/decision.h"
#include "core/decision_json.h"
