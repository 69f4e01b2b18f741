// The model lifecycle's HTTP routes (docs/lifecycle.md): POST /v1/models (upload),
// GET /v1/models, POST /v1/models/{name}/{version}:activate and POST /v1/models:rollback.
// Writes need the admin role, reads the analyst role. The Engine must outlive the router.
#pragma once

#include "api/router.h"
#include "engine/engine.h"

namespace verdict {

void RegisterLifecycleRoutes(Engine& engine, Router& router);

}  // namespace verdict
