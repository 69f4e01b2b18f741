// `verdict cluster status --etcd URL [--json]`: the cluster's live nodes, controller and
// partition map as etcd holds them (DESIGN §9).
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterClusterCommand(CLI::App& app);

}  // namespace verdict
