// The drift routes: GET /v1/drift (statistics per window, level, alerts; analyst role) and
// POST /v1/drift:clear (unfreeze after L3; admin role, journaled as a drift.clear admin event),
// registered on a Router. Without a drift monitor both answer 404 with a reason. The Engine must
// outlive the router.
#pragma once

#include "api/router.h"
#include "engine/engine.h"

namespace verdict {

void RegisterDriftRoutes(Engine& engine, Router& router);

}  // namespace verdict
