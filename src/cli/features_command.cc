#include "cli/features_command.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/case_labels.h"
#include "common/json_writer.h"
#include "features/feature_matrix_writer.h"
#include "features/feature_stream.h"
#include "formats/transaction_reader.h"

namespace verdict {
namespace {

struct FeaturesFlags {
  std::string input;
  std::string out;
  std::string format = "auto";
  std::string labels_from_cases;  // an engine's data directory
  std::string labels_tenant = "default";
  bool json = false;
};

int FailFeatures(const Status& s) {
  std::fprintf(stderr, "features: %s\n", s.message().c_str());
  return 1;
}

int RunFeatures(const FeaturesFlags& flags) {
  const auto start = std::chrono::steady_clock::now();
  auto reader = TransactionReader::Open(flags.input, flags.format);
  if (!reader.ok()) return FailFeatures(reader.status());
  training::LabelOverrides case_labels;
  if (!flags.labels_from_cases.empty()) {
    auto labels = LoadLabelsFromCases(flags.labels_from_cases, flags.labels_tenant);
    if (!labels.ok()) return FailFeatures(labels.status());
    case_labels = std::move(labels).value();
  }
  size_t relabelled = 0;
  auto writer = FeatureMatrixWriter::Open(flags.out);
  if (!writer.ok()) return FailFeatures(writer.status());

  FeatureExtractor extractor;
  FeatureStream stream(extractor);
  LabelledTransaction t;
  FeatureVector features{};
  size_t done = 0;
  while (true) {
    auto more = (*reader)->Next(&t);
    if (!more.ok()) return FailFeatures(more.status());
    if (!*more) break;
    stream.Process(t.txn, &features);
    if (auto it = case_labels.find(t.txn.transaction_id); it != case_labels.end()) {
      t.label = it->second != 0;
      if (*t.label && t.typology.empty()) t.typology = "analyst";
      ++relabelled;
    }
    Status s = (*writer)->Write(t.row, t.txn, t.label, t.typology, t.pattern_id, features);
    if (!s.ok()) return FailFeatures(s);
    if (++done % 100'000 == 0) std::fprintf(stderr, "\rfeatures: %zu rows", done);
  }
  Status closed = (*writer)->Close();
  if (!closed.ok()) return FailFeatures(closed);
  if (done >= 100'000) std::fputc('\n', stderr);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const ReadStats& stats = (*reader)->stats();
  for (const BadRow& bad : stats.bad_row_samples) {
    std::fprintf(stderr, "features: %s:%zu: bad row: %s\n", flags.input.c_str(), bad.line,
                 bad.message.c_str());
  }
  const FeatureCounters counters = extractor.counters();
  if (flags.json) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject()
        .Key("input")
        .String(flags.input)
        .Key("format")
        .String(CsvFormatName((*reader)->format()))
        .Key("out")
        .String(flags.out)
        .Key("schema_version")
        .String(kFeatureSchemaVersion)
        .Key("features")
        .Uint(kFeatureCount)
        .Key("transactions")
        .Uint(done)
        .Key("bad_rows")
        .Uint(stats.bad_rows)
        .Key("case_labels")
        .Uint(relabelled)
        .Key("late_events")
        .Uint(counters.late_events)
        .Key("recent_overflow")
        .Uint(counters.recent_overflow)
        .Key("unknown_currency")
        .Uint(counters.unknown_currency)
        .Key("accounts")
        .Uint(stream.store().AccountCount())
        .Key("seconds")
        .Double(seconds)
        .Key("throughput_per_s")
        .Double(seconds > 0 ? static_cast<double>(done) / seconds : 0)
        .Key("bad_row_samples")
        .BeginArray();
    for (const BadRow& bad : stats.bad_row_samples) {
      w.BeginObject().Key("line").Uint(bad.line).Key("message").String(bad.message).EndObject();
    }
    w.EndArray().EndObject();
    std::printf("%s\n", out.c_str());
  } else {
    std::printf("%zu transactions (%zu bad rows, %llu late) -> %s, %zu features, %.1f s\n", done,
                stats.bad_rows, static_cast<unsigned long long>(counters.late_events),
                flags.out.c_str(), static_cast<size_t>(kFeatureCount), seconds);
    if (!flags.labels_from_cases.empty()) {
      std::printf("%zu rows labelled by analysts' case dispositions (of %zu)\n", relabelled,
                  case_labels.size());
    }
  }
  return 0;
}

}  // namespace

void RegisterFeaturesCommand(CLI::App& app) {
  auto flags = std::make_shared<FeaturesFlags>();
  CLI::App* cmd = app.add_subcommand(
      "features", "Replay an input through the feature engine and export the feature matrix");
  cmd->add_option("--input", flags->input,
                  "CSV file (plain or .gz: verdict, AMLSim log, AMLworld) or AMLSim folder")
      ->required();
  cmd->add_option("--out", flags->out, "Output CSV of features and labels")->required();
  cmd->add_option("--format", flags->format,
                  "auto (from the header), verdict, amlsim, amlsim-folder, amlworld")
      ->capture_default_str();
  cmd->add_option("--labels-from-cases", flags->labels_from_cases,
                  "An engine's data directory: closed cases' dispositions replace the input's "
                  "labels, joined by transaction id (true_positive/escalated 1, else 0)");
  cmd->add_option("--labels-tenant", flags->labels_tenant, "Whose cases (--labels-from-cases)")
      ->capture_default_str();
  cmd->add_flag("--json", flags->json, "Print the totals as one JSON object on stdout");
  cmd->callback([flags] { throw CLI::RuntimeError(RunFeatures(*flags)); });
}

}  // namespace verdict
