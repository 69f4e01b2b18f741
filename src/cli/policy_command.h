// `verdict policy check FILE [--json]`: reads a policy bundle (a .policy file and the list
// files it names, or a folder holding one), checks it against the engine's feature schema
// and prints its identity or every error with file:line:column. Thin CLI11 wrapper over
// src/policy/policy_bundle.h; stateless.
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

// Adds `policy` with its `check` subcommand to `app`. Exit status: 0 when the bundle would
// activate, 1 when it has errors, 2 when it cannot be read.
void RegisterPolicyCommand(CLI::App& app);

}  // namespace verdict
