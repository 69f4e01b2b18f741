#include "cli/backtest_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>

#include "training/replay.h"

namespace verdict {
namespace {

struct BacktestFlags {
  training::BacktestOptions options;
  std::string format = "auto";
  std::string policy;
  std::string against;
  std::string model;
  std::string config;
  std::string work_dir;
  bool json = false;
  bool quiet = false;
};

int RunBacktest(BacktestFlags& flags) {
  // Logs go to stderr (stdout carries the report); the engine's warning about its asynchronous
  // journal does not apply to a replay, whose journal is thrown away.
  spdlog::set_default_logger(spdlog::stderr_color_mt("cli"));
  spdlog::set_level(spdlog::level::err);
  auto format = ParseCsvFormat(flags.format);
  if (!format.ok()) {
    std::fprintf(stderr, "backtest: %s\n", format.status().message().c_str());
    return 2;
  }
  training::BacktestOptions& o = flags.options;
  o.reader.format = *format;
  o.candidate = {flags.config, flags.model, flags.policy, flags.work_dir};
  // Without --against, the baseline is what the configuration (or the defaults) decide with.
  o.baseline = {flags.config, flags.model, flags.against, flags.work_dir};
  if (!flags.quiet) {
    o.progress = [](size_t rows, double seconds) {
      std::fprintf(stderr, "\rbacktest: %zu transactions, %.0f per second", rows,
                   seconds > 0 ? static_cast<double>(rows) / seconds : 0.0);
    };
  }
  auto report = training::Backtest(o);
  if (!flags.quiet) std::fputc('\n', stderr);
  if (!report.ok()) {
    std::fprintf(stderr, "backtest: %s\n", report.status().message().c_str());
    return 1;
  }
  if (flags.json) {
    std::printf("%s\n", training::BacktestReportJson(*report).c_str());
  } else {
    std::fputs(training::BacktestReportText(*report).c_str(), stdout);
  }
  return 0;
}

}  // namespace

void RegisterBacktestCommand(CLI::App& app) {
  auto flags = std::make_shared<BacktestFlags>();
  CLI::App* cmd = app.add_subcommand("backtest",
                                     "Replay history under a new policy and an old one and "
                                     "report how decisions change");
  cmd->add_option("--input", flags->options.reader.path,
                  "CSV file (plain or .gz: verdict, AMLSim log, AMLworld) or AMLSim folder")
      ->required();
  cmd->add_option("--format", flags->format,
                  "auto (from the header), verdict, amlsim, amlsim-folder, amlworld")
      ->capture_default_str();
  cmd->add_option("--policy", flags->policy, "The candidate policy bundle")->required();
  cmd->add_option("--against,--baseline", flags->against,
                  "The baseline policy bundle (default: the configuration's policy, or the "
                  "fixed rules)");
  cmd->add_option("--model", flags->model, "Model directory (both sides use it)");
  cmd->add_option("--config", flags->config, "Engine configuration for both sides");
  cmd->add_option("--examples", flags->options.max_examples, "Changed decisions to list")
      ->capture_default_str();
  cmd->add_option("--work-dir", flags->work_dir, "Where the temporary engine state goes");
  cmd->add_flag("--json", flags->json, "Print the report as one JSON object on stdout");
  cmd->add_flag("--quiet", flags->quiet, "No progress on stderr");
  cmd->callback([flags] { throw CLI::RuntimeError(RunBacktest(*flags)); });
}

}  // namespace verdict
