#include "cli/import_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/cluster_import.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/rfc3339.h"
#include "engine/engine.h"
#include "engine/engine_options.h"
#include "engine/history_import.h"
#include "security/api_key.h"

namespace verdict {
namespace {

struct ImportFlags {
  std::string input;
  std::string data_dir;
  std::string format = "auto";
  std::string config;
  std::string tenant = "default";
  bool allow_bad_rows = false;
  int64_t progress_interval_ms = 0;  // 0: by where stderr goes
  bool json = false;
  bool quiet = false;
};

// The configuration (or the defaults) with --data-dir applied and the directory created.
Result<EngineOptions> ImportEngineOptions(const ImportFlags& flags) {
  VERDICT_ASSIGN_OR_RETURN(EngineOptions options, flags.config.empty()
                                                      ? ParseEngineOptions("", "defaults")
                                                      : LoadEngineOptions(flags.config));
  options.data_dir = flags.data_dir;
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    return InvalidArgument(
        "cannot create data directory '" + options.data_dir + "': " + ec.message(), "data-dir");
  }
  return options;
}

void PrintImportSummary(const HistoryImportReport& r) {
  if (r.imported == 0 && r.already_imported > 0) {
    std::printf("nothing to import: all %llu transactions were imported before\n",
                static_cast<unsigned long long>(r.already_imported));
    return;
  }
  std::printf("imported %llu transactions (%s to %s) in %.1f s, %.0f per second",
              static_cast<unsigned long long>(r.imported),
              FormatRfc3339Micros(r.first_timestamp_us).c_str(),
              FormatRfc3339Micros(r.last_timestamp_us).c_str(), r.import_seconds,
              r.import_seconds > 0 ? static_cast<double>(r.imported) / r.import_seconds : 0.0);
  if (r.already_imported > 0) {
    std::printf("; %llu imported by an earlier run",
                static_cast<unsigned long long>(r.already_imported));
  }
  if (r.bad_rows > 0) {
    std::printf("; %llu bad rows skipped", static_cast<unsigned long long>(r.bad_rows));
  }
  std::printf("\n");
}

int RunImport(const ImportFlags& flags) {
  // Logs go to stderr (stdout carries the summary), errors only: the engine's start-up
  // warnings are about deciding (no model configured, an asynchronous journal), which an import
  // does not do; what goes wrong with the import is its own message.
  spdlog::set_default_logger(spdlog::stderr_color_mt("cli"));
  spdlog::set_level(spdlog::level::err);
  Result<CsvFormat> format = ParseCsvFormat(flags.format);
  if (!format.ok()) {
    std::fprintf(stderr, "import: --format: %s\n", format.status().message().c_str());
    return 2;
  }
  // The same names API keys take: a tenant is part of every account's key.
  if (Status tenant = security::ValidateTenant(flags.tenant, "tenant"); !tenant.ok()) {
    std::fprintf(stderr, "import: --tenant: %s\n", tenant.message().c_str());
    return 2;
  }
  Result<EngineOptions> options = ImportEngineOptions(flags);
  if (!options.ok()) {
    std::fprintf(stderr, "import: %s\n", options.status().message().c_str());
    return 2;
  }
  // A cluster's journal is in PostgreSQL: the import takes it (as owner of every partition, at
  // a new epoch) while no node serves; the data directory then holds only local files.
  journal::BackendOpener open_journal;
  if (options->cluster.enabled) {
    Result<ClusterImportJournal> taken = TakeClusterJournalForImport(options->cluster);
    if (!taken.ok()) {
      std::fprintf(stderr, "import: cluster: %s\n", taken.status().message().c_str());
      return 1;
    }
    if (!flags.quiet) {
      std::fprintf(stderr, "import: the cluster's journal, as %s at epoch %llu\n",
                   taken->owner.c_str(), static_cast<unsigned long long>(taken->epoch));
    }
    open_journal = std::move(taken->open);
  }
  MetricsRegistry metrics;
  Result<std::unique_ptr<Engine>> engine =
      Engine::Create(*options, metrics, SystemClock::Instance(), std::move(open_journal));
  if (!engine.ok()) {
    std::fprintf(stderr, "import: cannot open the data directory %s: %s\n", flags.data_dir.c_str(),
                 engine.status().message().c_str());
    return 1;
  }
  HistoryImportOptions import;
  import.reader.path = flags.input;
  import.reader.format = *format;
  import.caller = Caller{flags.tenant, "import"};
  import.allow_bad_rows = flags.allow_bad_rows;
  // A terminal gets one line rewritten in place; a log file or pipe a line every few seconds.
  const bool terminal = isatty(STDERR_FILENO) == 1;
  import.progress_interval_ms =
      flags.progress_interval_ms > 0 ? flags.progress_interval_ms : (terminal ? 500 : 5000);
  if (!flags.quiet) {
    import.progress = [terminal](const ImportProgress& p) {
      std::fprintf(stderr, terminal ? "\r%s" : "%s\n", FormatImportProgress(p).c_str());
  };
}
Result<HistoryImportReport> report = ImportHistory(**engine, import);
if (!flags.quiet && terminal) std::fputc('\n', stderr);
if (!report.ok()) {
  std::fprintf(stderr, "import: %s\n", report.status().message().c_str());
  return 1;
}
if (flags.json) {
  std::printf("%s\n", HistoryImportReportJson(*report).c_str());
} else {
  PrintImportSummary(*report);
}
return 0;
}  // namespace

}  // namespace verdict

void RegisterImportCommand(CLI::App& app) {
  auto flags = std::make_shared<ImportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Load transaction history into a data directory before serving, so the engine starts "
      "with the accounts' state (docs/import.md)");
  cmd->add_option("--input", flags->input,
                  "History: CSV (verdict, AMLSim, AMLworld; plain or .gz), an AMLSim folder, or "
                  "a file of ISO 20022 or SWIFT MT messages")
      ->required();
  cmd->add_option("--data-dir", flags->data_dir,
                  "The engine's state directory (created if missing)")
      ->required();
  cmd->add_option("--format", flags->format,
                  "auto (detected), verdict, amlsim, amlsim-folder, amlworld, iso20022, swift-mt")
      ->capture_default_str();
  cmd->add_option("--config", flags->config,
                  "Engine configuration (the journal's settings: durability, encryption)");
  cmd->add_option("--tenant", flags->tenant,
                  "Tenant whose accounts the history fills (serve --insecure-dev uses 'dev')")
      ->capture_default_str();
  cmd->add_flag("--allow-bad-rows", flags->allow_bad_rows,
                "Skip rows that cannot be read (reported) instead of refusing the import");
  cmd->add_option("--progress-interval-ms", flags->progress_interval_ms,
                  "Milliseconds between progress lines (default: 500 on a terminal, else 5000)");
  cmd->add_flag("--json", flags->json, "Print the summary as one JSON object on stdout");
  cmd->add_flag("--quiet", flags->quiet, "No progress on stderr");
  cmd->callback([flags] { throw CLI::RuntimeError(RunImport(*flags)); });
}

}  // namespace verdict
