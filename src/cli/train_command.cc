#include "cli/train_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/case_labels.h"
#include "common/json_writer.h"
#include "training/trainer.h"

namespace verdict {
namespace {

struct TrainFlags {
  training::TrainOptions options;
  std::string format = "auto";
  std::string labels_from_cases;  // an engine's data directory
  std::string labels_tenant = "default";
  bool json = false;
};

void PrintTypologies(const training::DetectionReport& d) {
  for (const auto& [name, t] : d.by_typology) {
    std::printf("  %-22s recall %.4f (%zu of %zu)\n", name.empty() ? "unknown" : name.c_str(),
                t.recall(), t.detected, t.positives);
  }
}

void PrintRanking(const char* name, const training::DetectionReport& d) {
  std::printf(
      "hold-out by %s: PR-AUC %.4f; at alert rate %.2f%%: precision %.4f, recall %.4f, "
      "F1 %.4f\n",
      name, d.pr_auc, 100 * d.alert_rate, d.precision, d.recall, d.f1);
  PrintTypologies(d);
}

int RunTrain(TrainFlags& flags) {
  // Logs go to stderr (stdout carries the report); the engine's warning about its asynchronous
  // journal does not apply to a replay, whose journal is thrown away.
  spdlog::set_default_logger(spdlog::stderr_color_mt("cli"));
  spdlog::set_level(spdlog::level::err);
  auto format = ParseCsvFormat(flags.format);
  if (!format.ok()) {
    std::fprintf(stderr, "train: %s\n", format.status().message().c_str());
    return 2;
  }
  flags.options.reader.format = *format;
  if (!flags.labels_from_cases.empty()) {
    auto labels = LoadLabelsFromCases(flags.labels_from_cases, flags.labels_tenant);
    if (!labels.ok()) {
      std::fprintf(stderr, "train: %s\n", labels.status().message().c_str());
      return 2;
    }
    std::fprintf(stderr, "train: %zu case dispositions of tenant '%s' as labels\n", labels->size(),
                 flags.labels_tenant.c_str());
    flags.options.label_overrides = std::move(labels).value();
  }
  auto result = training::Train(flags.options, [](std::string_view line) {
    std::fprintf(stderr, "train: %.*s\n", static_cast<int>(line.size()), line.data());
  });
  if (!result.ok()) {
    std::fprintf(stderr, "train: %s\n", result.status().message().c_str());
    return 1;
  }
  const training::TrainResult& r = *result;
  if (flags.json) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject()
        .Key("out")
        .String(flags.options.out_dir)
        .Key("seconds_features")
        .Double(r.features_seconds)
        .Key("seconds_training")
        .Double(r.training_seconds)
        .Key("accounts")
        .Uint(r.accounts)
        .Key("case_labels")
        .Uint(r.case_labels)
        .Key("model_bytes")
        .Uint(r.model_bytes)
        .Key("manifest")
        .Raw(r.manifest_json.substr(0, r.manifest_json.find_last_not_of('\n') + 1))
        .EndObject();
    std::printf("%s\n", out.c_str());
    return 0;
  }
  const training::DetectionReport& h = r.holdout;
  std::printf(
      "%zu rows (%zu bad, %zu unlabelled), %zu accounts; train %zu rows (%zu laundering), "
      "hold-out %zu rows (%zu laundering)\n",
      r.rows, r.bad_rows, r.unlabelled_rows, r.accounts, r.train_rows, r.train_positives,
      r.holdout_rows, r.holdout_positives);
  if (!flags.labels_from_cases.empty()) {
    std::printf("%zu rows labelled by analysts' case dispositions\n", r.case_labels);
  }
  std::printf("model %s: %zu trees, %zu bytes, sha256 %s\n", flags.options.out_dir.c_str(), r.trees,
              r.model_bytes, r.sha256.substr(0, 16).c_str());
  std::printf(
      "hold-out: PR-AUC %.4f; at alert rate %.2f%% (score >= %.4g): precision %.4f, "
      "recall %.4f, F1 %.4f\n",
      h.pr_auc, 100 * h.alert_rate, h.threshold, h.precision, h.recall, h.f1);
  PrintTypologies(h);
  if (r.holdout_anomaly) PrintRanking("anomaly", *r.holdout_anomaly);
  PrintRanking("risk", r.holdout_risk);
  for (const training::UnseenTypology& u : r.unseen) {
    std::printf(
        "held out of training: %s, every laundering row at the hold-out thresholds: "
        "recall by score %.4f, anomaly %.4f, risk %.4f (%zu rows)\n",
        u.typology.c_str(), u.score.recall(), u.anomaly.recall(), u.risk.recall(),
        u.risk.positives);
  }
  if (r.holdout_accounts) {
    const auto& a = *r.holdout_accounts;
    std::printf(
        "hold-out accounts at %.2f%% flagged: recall %.4f (%zu of %zu), precision %.4f; "
        "average precision %.4f\n",
        100 * a.flag_rate, a.recall, a.detected, a.fraud_accounts, a.precision,
        a.average_precision);
  }
  std::printf("features %.1f s, training %.1f s\n", r.features_seconds, r.training_seconds);
  return 0;
}

}  // namespace

void RegisterTrainCommand(CLI::App& app) {
  auto flags = std::make_shared<TrainFlags>();
  training::TrainOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "train", "Train an XGBoost model on labelled history and write a model directory");
  cmd->add_option("--input", o.reader.path,
                  "CSV file (plain or .gz: verdict, AMLSim log, AMLworld) or AMLSim folder")
      ->required();
  cmd->add_option("--out", o.out_dir, "Model directory to write (created if needed)")->required();
  cmd->add_option("--format", flags->format,
                  "auto (from the header), verdict, amlsim, amlsim-folder, amlworld")
      ->capture_default_str();
  cmd->add_option("--name", o.name, "Model name recorded in the manifest")->capture_default_str();
  cmd->add_option("--model-version", o.version, "Model version recorded in the manifest")
      ->capture_default_str();
  cmd->add_option("--holdout", o.holdout_fraction,
                  "Share of the history, by time, held out for evaluation (the last part)")
      ->capture_default_str();
  cmd->add_option("--alert-rate", o.alert_rate, "Alert rate the hold-out report is given at")
      ->capture_default_str();
  cmd->add_option("--rounds", o.booster.rounds, "Boosting rounds")->capture_default_str();
  cmd->add_option("--max-depth", o.booster.max_depth, "Tree depth")->capture_default_str();
  cmd->add_option("--eta", o.booster.eta, "Learning rate")->capture_default_str();
  cmd->add_option("--threads", o.booster.threads, "XGBoost threads (0: all cores)")
      ->capture_default_str();
  cmd->add_option("--seed", o.booster.seed, "XGBoost seed")->capture_default_str();
  cmd->add_option("--scale-pos-weight", o.booster.scale_pos_weight,
                  "Weight of laundering rows (negative: normal/laundering ratio)")
      ->capture_default_str();
  cmd->add_option("--min-child-weight", o.booster.min_child_weight, "XGBoost min_child_weight")
      ->capture_default_str();
  cmd->add_option("--subsample", o.booster.subsample, "Row subsampling per tree")
      ->capture_default_str();
  cmd->add_option("--colsample-bytree", o.booster.colsample_bytree, "Feature subsampling per tree")
      ->capture_default_str();
  cmd->add_option("--exclude-features", o.exclude_features,
                  "Features the model may not use (comma-separated names; treated as missing in "
                  "training)")
      ->delimiter(',');
  cmd->add_option("--reference-min-history-days", o.reference_min_account_history_days,
                  "The drift reference describes rows whose sender was known this many days "
                  "(as [drift] min_account_history_days counts live; 0: every row)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--hold-out-typology", o.holdout_typologies,
                  "Train without this typology's laundering rows and report it as unseen "
                  "(repeatable)");
  cmd->add_option("--anomaly-trees", o.anomaly.trees,
                  "Trees of the anomaly model (isolation forest; 0: none)")
      ->capture_default_str();
  cmd->add_option("--anomaly-sample", o.anomaly.sample_size,
                  "Training rows each anomaly tree is grown on")
      ->capture_default_str();
  cmd->add_option("--anomaly-seed", o.anomaly.seed, "Seed of the anomaly model")
      ->capture_default_str();
  cmd->add_option("--labels-from-cases", flags->labels_from_cases,
                  "An engine's data directory: closed cases' dispositions replace the input's "
                  "labels, joined by transaction id (true_positive/escalated 1, else 0)");
  cmd->add_option("--labels-tenant", flags->labels_tenant, "Whose cases (--labels-from-cases)")
      ->capture_default_str();
  cmd->add_flag("--json", flags->json, "Print the summary (with the manifest) as JSON on stdout");
  cmd->callback([flags] { throw CLI::RuntimeError(RunTrain(*flags)); });
}

}  // namespace verdict
