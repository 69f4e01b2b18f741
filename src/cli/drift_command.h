// `verdict drift report`: the live drift monitor's statistics computed offline over a data file
// against a model directory's reference.json, written as a self-contained HTML page and, with
// --json, as JSON on stdout (docs/drift.md).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterDriftCommand(CLI::App& app);

}  // namespace verdict
