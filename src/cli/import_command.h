// `verdict import`: loads transaction history into a data directory before the engine serves
// there, so that it starts with the accounts' state as if it had decided that history
// (docs/import.md).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterImportCommand(CLI::App& app);

}  // namespace verdict
