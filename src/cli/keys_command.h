// `verdict keys create|list|revoke`: API-key management on a stopped engine's data directory
// (the journal's registry; RocksDB's lock refuses a running engine's). Registration only; the
// commands run on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterKeysCommand(CLI::App& app);

}  // namespace verdict
