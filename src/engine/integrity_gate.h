// IntegrityGate: the router gate (Router::SetGate) that keeps the engine from serving a data
// directory whose journal failed its integrity checks (docs/journal_format.md, "Verify before
// serving"): every route but liveness, readiness and metrics answers 503 with reason
// "journal_damaged", naming the damage; in read-only investigation, GET routes still answer.
// Stateless beyond the journal it asks; thread-safe. The journal must outlive the gate.
#pragma once

#include "api/router.h"
#include "journal/journal.h"

namespace verdict {

Router::Gate IntegrityGate(const journal::Journal& journal, bool read_only_investigation);

}  // namespace verdict
