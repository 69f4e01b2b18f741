// verdict: the command-line entry point; one file per subcommand registers itself here.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/audit_command.h"
#include "cli/backtest_command.h"
#include "cli/cluster_command.h"
#include "cli/drift_command.h"
#include "cli/features_command.h"
#include "cli/import_command.h"
#include "cli/keys_command.h"
#include "cli/lists_command.h"
#include "cli/model_command.h"
#include "cli/policy_command.h"
#include "cli/replay_command.h"
#include "cli/serve_command.h"
#include "cli/sim_command.h"
#include "cli/train_command.h"

namespace {

void RegisterVersionCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("version", "Print the version");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print {\"version\": ...}");
  cmd->callback([json] {
    if (*json) {
      std::printf("{\"version\":\"%s\"}\n", VERDICT_VERSION);
    } else {
      std::printf("verdict %s\n", VERDICT_VERSION);
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("verdict: real-time risk decisions for payments compliance", "verdict");
  app.require_subcommand(1);
  RegisterVersionCommand(app);
  verdict::RegisterServeCommand(app);
  verdict::RegisterAuditCommand(app);
  verdict::RegisterModelCommand(app);
  verdict::RegisterPolicyCommand(app);
  verdict::RegisterListsCommand(app);
  verdict::RegisterSimCommand(app);
  verdict::RegisterFeaturesCommand(app);
  verdict::RegisterTrainCommand(app);
  verdict::RegisterReplayCommand(app);
  verdict::RegisterImportCommand(app);
  verdict::RegisterBacktestCommand(app);
  verdict::RegisterKeysCommand(app);
  verdict::RegisterDriftCommand(app);
  verdict::RegisterClusterCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}
