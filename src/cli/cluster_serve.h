// `verdict serve` with a [cluster] table: the process runs as one node of a cluster (DESIGN §9,
// docs/cluster.md). It answers on its listener at once and, as long as it lives, keeps its
// etcd lease; the node that the partition map makes the owner claims the journal's fence in
// PostgreSQL, builds its engine from the journal there and decides; every other node forwards
// each request to the owner. Losing the lease or the fence stops the engine at once; the node
// then forwards like any other. Blocks until a stop signal.
#pragma once

#include <signal.h>

#include <cstdint>
#include <functional>

#include "cli/engine_stack.h"
#include "common/metrics.h"
#include "engine/engine_options.h"

namespace verdict {

// Returns the process's exit code. `on_listening` gets the bound port once the listener is up.
int ServeClusterNode(const EngineStackFlags& flags, const EngineOptions& options,
                     MetricsRegistry& metrics, const sigset_t& stop_signals,
                     const std::function<void(uint16_t port)>& on_listening);

}  // namespace verdict
