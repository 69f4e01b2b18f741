// `verdict features`: replays an input through the feature engine and writes the feature
// matrix with labels as CSV (docs/features.md).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterFeaturesCommand(CLI::App& app);

}  // namespace verdict
