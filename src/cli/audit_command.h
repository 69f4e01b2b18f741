// `verdict audit verify|show|export`: a thin CLI11 front over src/journal's verifier and reader.
// Registration only; the commands run on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

// Adds the `audit` subcommand and its three subcommands to `app`. A command that finds a problem
// (tampering, no such record) or fails throws CLI::RuntimeError with exit code 1 or 2.
void RegisterAuditCommand(CLI::App& app);

}  // namespace verdict
