#include "cli/drift_command.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/rfc3339.h"
#include "engine/engine_options.h"
#include "features/feature_stream.h"
#include "formats/transaction_reader.h"
#include "lifecycle/scoring_model.h"
#include "model/forest.h"
#include "monitor/drift_html.h"
#include "monitor/drift_json.h"
#include "monitor/drift_report.h"
#include "training/model_directory.h"

namespace verdict {
namespace {

struct DriftFlags {
  std::string model;
  std::string input;
  std::string out;
  std::string format = "auto";
  std::string config;
  bool json = false;
  bool quiet = false;
};

int FailDrift(const Status& s) {
  std::fprintf(stderr, "drift report: %s\n", s.message().c_str());
  return 1;
}

int RunDriftReport(const DriftFlags& flags) {
  if (flags.out.empty() && !flags.json) {
    return FailDrift(InvalidArgument("give --out FILE.html, --json, or both", "out"));
  }
  const auto start = std::chrono::steady_clock::now();
  // Thresholds: the [drift] table of a configuration file, else the defaults, so the report
  // judges data as the live monitor of that configuration would.
  monitor::DriftOptions options;
  if (!flags.config.empty()) {
    auto engine_options = LoadEngineOptions(flags.config);
    if (!engine_options.ok()) return FailDrift(engine_options.status());
    options = engine_options->drift;
  }

  // The model as served: the directory's identity (schema and SHA-256 checked), its forest
  // mapped onto this binary's feature vector, and its reference distributions.
  auto model_options = training::ModelOptionsFromPath(flags.model);
  if (!model_options.ok()) return FailDrift(model_options.status());
  if (model_options->path == flags.model) {
    return FailDrift(
        InvalidArgument(flags.model + ": give a model directory (with reference.json)", "model"));
  }
  auto forest = model::Forest::LoadFile(model_options->path);
  if (!forest.ok()) return FailDrift(forest.status());
  auto scorer = lifecycle::ScoringModel::Create(model_options->name, model_options->version,
                                                std::move(forest).value(), kFeatureNames, "model");
  if (!scorer.ok()) return FailDrift(scorer.status());
  auto reference =
      monitor::ReadReferenceFile(flags.model + "/" + std::string(training::kReferenceFile));
  if (!reference.ok()) return FailDrift(reference.status());
  auto builder = monitor::DriftReportBuilder::Create(std::move(reference).value(), kFeatureNames);
  if (!builder.ok()) return FailDrift(builder.status());

  auto reader = TransactionReader::Open(flags.input, flags.format);
  if (!reader.ok()) return FailDrift(reader.status());

  // Features with the code `verdict train` and `replay` use: the same values the model saw.
  FeatureExtractor extractor;
  FeatureStream stream(extractor);
  LabelledTransaction t;
  FeatureVector features{};
  const FeatureView view{features, kFeatureNames, kFeatureSchemaVersion};
  size_t done = 0;
  while (true) {
    auto more = (*reader)->Next(&t);
    if (!more.ok()) return FailDrift(more.status());
    if (!*more) break;
    stream.Process(t.txn, &features);
    builder->AddRow(features, (*scorer)->Score(view));
    if (++done % 100'000 == 0 && !flags.quiet) {
      std::fprintf(stderr, "\rdrift report: %zu rows", done);
    }
  }
  if (done >= 100'000 && !flags.quiet) std::fputc('\n', stderr);
  for (const BadRow& bad : (*reader)->stats().bad_row_samples) {
    std::fprintf(stderr, "drift report: %s:%zu: bad row: %s\n", flags.input.c_str(), bad.line,
                 bad.message.c_str());
  }
  if (done == 0) return FailDrift(InvalidArgument(flags.input + ": no good rows", "input"));

  monitor::DriftReport report = builder->Build(options);
  report.model_name = model_options->name;
  report.model_version = model_options->version;
  report.input = flags.input;
  if (!flags.out.empty()) {
    const std::string html = monitor::DriftReportToHtml(
        report, options, FormatRfc3339Micros(SystemClock::Instance().NowMicros()));
    Status written = training::WriteFileAtomically(flags.out, html);
    if (!written.ok()) return FailDrift(written);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!flags.quiet) {
    std::fprintf(stderr,
                 "drift report: %zu rows (%zu bad) in %.1f s: level %d, drift score %.4f, %zu of "
                 "%zu features drifted%s%s\n",
                 done, (*reader)->stats().bad_rows, seconds, report.level, report.drift_score,
                 report.DriftedFeatures(), report.features.size(), flags.out.empty() ? "" : " -> ",
                 flags.out.c_str());
  }
  if (flags.json) std::printf("%s\n", monitor::DriftReportToJson(report, options).c_str());
  return 0;
}

}  // namespace

void RegisterDriftCommand(CLI::App& app) {
  CLI::App* drift = app.add_subcommand("drift", "Drift of features and score against a model");
  drift->require_subcommand(1);
  auto flags = std::make_shared<DriftFlags>();
  CLI::App* cmd = drift->add_subcommand(
      "report",
      "Compare a data file with a model's reference distributions (PSI, KS, Wasserstein-1, "
      "JS) and write an HTML report");
  cmd->add_option("--model", flags->model,
                  "Model directory (model.json, manifest.json, "
                  "reference.json) as `verdict train` writes it")
      ->required();
  cmd->add_option("--input", flags->input,
                  "Data file: CSV (plain or .gz: verdict, AMLSim log, AMLworld), AMLSim folder "
                  "or payment message file")
      ->required();
  cmd->add_option("--out", flags->out, "HTML report to write (self-contained, one file)");
  cmd->add_option("--format", flags->format,
                  "auto (from the header), verdict, amlsim, amlsim-folder, amlworld")
      ->capture_default_str();
  cmd->add_option("--config", flags->config,
                  "verdict.toml whose [drift] thresholds to use (default: the built-in ones)");
  cmd->add_flag("--json", flags->json, "Print the statistics as one JSON object on stdout");
  cmd->add_flag("--quiet", flags->quiet, "No progress or summary on stderr");
  cmd->callback([flags] { throw CLI::RuntimeError(RunDriftReport(*flags)); });
}

}  // namespace verdict
