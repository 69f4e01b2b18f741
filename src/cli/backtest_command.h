// `verdict backtest`: replays history under two policies and reports how decisions change
// (docs/training.md).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterBacktestCommand(CLI::App& app);

}  // namespace verdict
