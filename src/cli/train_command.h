// `verdict train`: trains an XGBoost model on labelled history with the engine's own feature
// code and writes a model directory (docs/training.md).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterTrainCommand(CLI::App& app);

}  // namespace verdict
