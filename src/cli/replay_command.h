// `verdict replay`: runs history through the engine's whole decision pipeline and reports
// throughput, outcomes and detection metrics (docs/training.md).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterReplayCommand(CLI::App& app);

}  // namespace verdict
