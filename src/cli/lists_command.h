// `verdict lists import`: sends a new version of a published sanctions list (OpenSanctions
// targets.simple.csv, OFAC sdn.csv + alt.csv, UN consolidated XML) to a running engine's
// POST /v1/lists/import, after reading it here with the engine's own readers so that a
// malformed file is reported (file:line: field) before anything is sent. Registration only;
// the command runs on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

// Exit status: 0 when the engine activated the list, 1 when the files or the engine refused
// it, 2 when a file or the engine could not be reached.
void RegisterListsCommand(CLI::App& app);

}  // namespace verdict
