// `verdict serve`: starts the engine and its HTTP server and runs until SIGINT/SIGTERM.
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterServeCommand(CLI::App& app);

}  // namespace verdict
