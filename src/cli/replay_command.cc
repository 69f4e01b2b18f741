#include "cli/replay_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>

#include "training/replay.h"

namespace verdict {
namespace {

struct ReplayFlags {
  training::ReplayOptions options;
  std::string format = "auto";
  bool json = false;
  bool quiet = false;
};

int RunReplay(ReplayFlags& flags) {
  // Logs go to stderr (stdout carries the report); the engine's warning about its asynchronous
  // journal does not apply to a replay, whose journal is thrown away.
  spdlog::set_default_logger(spdlog::stderr_color_mt("cli"));
  spdlog::set_level(spdlog::level::err);
  auto format = ParseCsvFormat(flags.format);
  if (!format.ok()) {
    std::fprintf(stderr, "replay: %s\n", format.status().message().c_str());
    return 2;
  }
  flags.options.reader.format = *format;
  if (!flags.quiet) {
    flags.options.progress = [](size_t rows, double seconds) {
      std::fprintf(stderr, "\rreplay: %zu transactions, %.0f per second", rows,
                   seconds > 0 ? static_cast<double>(rows) / seconds : 0.0);
    };
  }
  auto report = training::Replay(flags.options);
  if (!flags.quiet) std::fputc('\n', stderr);
  if (!report.ok()) {
    std::fprintf(stderr, "replay: %s\n", report.status().message().c_str());
    return 1;
  }
  if (flags.json) {
    std::printf("%s\n", training::ReplayReportJson(*report).c_str());
  } else {
    std::fputs(training::ReplayReportText(*report).c_str(), stdout);
  }
  return 0;
}

}  // namespace

void RegisterReplayCommand(CLI::App& app) {
  auto flags = std::make_shared<ReplayFlags>();
  training::ReplayOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "replay", "Run history through the engine's decision pipeline (features, model, policy)");
  cmd->add_option("--input", o.reader.path,
                  "CSV file (plain or .gz: verdict, AMLSim log, AMLworld) or AMLSim folder")
      ->required();
  cmd->add_option("--format", flags->format,
                  "auto (from the header), verdict, amlsim, amlsim-folder, amlworld")
      ->capture_default_str();
  cmd->add_option("--model", o.pipeline.model_path,
                  "Model directory from `verdict train` (or an XGBoost .json file)");
  cmd->add_option("--policy", o.pipeline.policy_path, "Policy bundle (.policy file or folder)");
  cmd->add_option("--config", o.pipeline.config_path,
                  "Engine configuration (rules, policy, model); --model and --policy override it");
  cmd->add_option("--decisions", o.decisions_path,
                  "Write one JSON line per transaction: row, transaction_id, outcome, score, risk, "
                  "anomaly, path");
  cmd->add_flag("--decisions-by-risk", o.decisions_by_risk,
                "Write the decisions file by risk, highest first (default: input order)");
  cmd->add_option("--alert-rate", o.alert_rate,
                  "Alert rate for the model-score metrics (with labels and a model)")
      ->capture_default_str();
  cmd->add_option("--work-dir", o.pipeline.work_dir,
                  "Where the temporary engine state goes (default: the system's temp folder)");
  cmd->add_flag("--json", flags->json, "Print the report as one JSON object on stdout");
  cmd->add_flag("--quiet", flags->quiet, "No progress on stderr");
  cmd->callback([flags] { throw CLI::RuntimeError(RunReplay(*flags)); });
}

}  // namespace verdict
