// The engine's HTTP routes (DESIGN.md §7) registered on a Router. The handlers decode on the
// I/O thread (one TransactionDecoder per thread) and answer from the worker that decided.
// The Engine and MetricsRegistry must outlive the router.
#pragma once

#include "api/router.h"
#include "common/metrics.h"
#include "engine/engine.h"

namespace verdict {

void RegisterEngineRoutes(Engine& engine, MetricsRegistry& metrics, Router& router);

}  // namespace verdict
