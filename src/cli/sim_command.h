// `verdict sim`: writes a simulated, labelled transaction set as verdict CSV (docs/sim.md).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterSimCommand(CLI::App& app);

}  // namespace verdict
