// The engine's drift watch (docs/drift.md): a monitor for every model version that decides,
// the configured model's reference read beside its model file and a registered model's from
// its registry directory. A free function; the watch it returns is thread-safe.
#pragma once

#include <memory>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "engine/engine_options.h"
#include "lifecycle/tenant_models.h"
#include "monitor/drift_watch.h"

namespace verdict {

// Null when [drift] enabled = false. The configured model (if any) is looked up at once: a bad
// reference.json beside it is an error naming model.path, and a freeze `recorder` kept for it
// holds again. `models`, `metrics`, `clock` and `recorder` (null: nothing recorded) must
// outlive the watch.
Result<std::unique_ptr<monitor::DriftWatch>> MakeDriftWatch(const EngineOptions& options,
                                                            const lifecycle::TenantModels& models,
                                                            MetricsRegistry& metrics,
                                                            const Clock& clock,
                                                            monitor::DriftRecorder* recorder);

}  // namespace verdict
