#include "training/model_card.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "common/rfc3339.h"
#include "features/feature_vector.h"

namespace verdict::training {
namespace {

std::string Format(const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

std::string DataSection(const TrainOptions& options, const TrainResult& r) {
  std::string out = "## Data\n\n";
  out += "- input: `" + r.input + "` (" + std::string(CsvFormatName(r.format)) + ")\n";
  out += Format("- %zu rows (%zu bad, %zu unlabelled), %zu accounts\n", r.rows, r.bad_rows,
                r.unlabelled_rows, r.accounts);
  out += "- split by time at " + FormatRfc3339Micros(r.split_us) +
         Format(": training %zu rows (%zu laundering), hold-out %zu rows (%zu laundering)\n",
                r.train_rows, r.train_positives, r.holdout_rows, r.holdout_positives);
  if (!options.holdout_typologies.empty()) {
    out +=
        "- typologies held out of training (their laundering rows left out of the training "
        "part, scored as unseen):";
    for (const std::string& t : options.holdout_typologies) out += " `" + t + "`";
    out += Format(" (%zu training rows left out)\n", r.train_dropped_positives);
  }
  if (r.case_labels > 0) out += Format("- %zu rows labelled by case dispositions\n", r.case_labels);
  return out + "\n";
}

std::string FeatureSection(const TrainOptions& options, const std::vector<std::string>& names) {
  std::string out = "## Features\n\nSchema `" + std::string(kFeatureSchemaVersion) + "`, " +
                    std::to_string(names.size()) +
                    " features, computed by the engine's own feature code in time order (the "
                    "values a served model sees):";
  const std::set<std::string> excluded(options.exclude_features.begin(),
                                       options.exclude_features.end());
  for (const std::string& n : names) {
    out += " `" + n + "`" + (excluded.count(n) != 0 ? " (excluded)" : "");
  }
  return out + ".\n\n";
}

std::string ModelSection(const TrainOptions& options, const TrainResult& r) {
  const BoosterParams& p = options.booster;
  std::string out = "## Models\n\n";
  out += Format(
      "- supervised: XGBoost, %zu trees (%d rounds, depth %d, eta %g, seed %llu), `model.json` "
      "sha256 %s\n",
      r.trees, p.rounds, p.max_depth, p.eta, static_cast<unsigned long long>(p.seed),
      r.sha256.c_str());
  if (r.holdout_anomaly) {
    out += Format(
        "- anomaly: isolation forest, %zu trees on samples of %zu training rows (seed %llu), "
        "labels unused, `anomaly.txt`\n",
        options.anomaly.trees, options.anomaly.sample_size,
        static_cast<unsigned long long>(options.anomaly.seed));
  } else {
    out += "- anomaly: none\n";
  }
  out += Format(
      "- risk: logistic regression fitted on the hold-out (held-out typologies' rows "
      "excluded): risk = σ(%.4f + %.4f·logit(score) + %.4f·logit(anomaly)), `risk.json`\n\n",
      r.risk.intercept, r.risk.score_weight, r.risk.anomaly_weight);
  return out;
}

std::string ReportRow(const char* name, const DetectionReport& d) {
  return Format("| %s | %.4f | %.2f%% | %.4f | %.4f | %.4f | %zu of %zu |\n", name, d.pr_auc,
                100 * d.alert_rate, d.precision, d.recall, d.f1, d.true_positives, d.positives);
}

std::string Recall(const TypologyRecall& t) {
  return Format("%.4f (%zu of %zu)", t.recall(), t.detected, t.positives);
}

std::string FiguresSection(const TrainOptions& options, const TrainResult& r) {
  std::string out = Format(
      "## Figures (hold-out: %zu rows, %zu laundering; alert rate %.2f%%)\n\n"
      "| ranking | PR-AUC | alert rate | precision | recall | F1 | detected |\n"
      "|---|---|---|---|---|---|---|\n",
      r.holdout_rows, r.holdout_positives, 100 * options.alert_rate);
  out += ReportRow("score", r.holdout);
  if (r.holdout_anomaly) out += ReportRow("anomaly", *r.holdout_anomaly);
  out += ReportRow("risk", r.holdout_risk);
  out +=
      "\nRecall per typology at that alert rate:\n\n"
      "| typology | score | anomaly | risk |\n|---|---|---|---|\n";
  for (const auto& [name, t] : r.holdout.by_typology) {
    const bool held =
        std::find(options.holdout_typologies.begin(), options.holdout_typologies.end(), name) !=
        options.holdout_typologies.end();
    out += "| " + (name.empty() ? std::string("unknown") : name) + (held ? " (held out)" : "") +
           " | " + Recall(t) + " | " +
           (r.holdout_anomaly ? Recall(r.holdout_anomaly->by_typology.at(name)) : "—") + " | " +
           Recall(r.holdout_risk.by_typology.at(name)) + " |\n";
  }
  if (!r.unseen.empty()) {
    out +=
        "\nHeld-out typologies, every laundering row (both parts) at the hold-out "
        "thresholds:\n\n| typology | score | anomaly | risk |\n|---|---|---|---|\n";
    for (const UnseenTypology& u : r.unseen) {
      out += "| " + u.typology + " | " + Recall(u.score) + " | " +
             (r.holdout_anomaly ? Recall(u.anomaly) : "—") + " | " + Recall(u.risk) + " |\n";
    }
  }
  return out;
}

}  // namespace

std::string ModelCardMarkdown(const TrainOptions& options, const TrainResult& result,
                              const std::vector<std::string>& feature_names) {
  std::string out = "# Model card: " + options.name + " v" + options.version + "\n\n";
  out +=
      "Written by `verdict train`. The hold-out is the last part of the history by time; the "
      "risk calibration is fitted on it too (three parameters), so risk's figures are "
      "in-sample for the calibration, not for the models.\n\n";
  out += DataSection(options, result);
  out += FeatureSection(options, feature_names);
  out += ModelSection(options, result);
  out += FiguresSection(options, result);
  return out;
}

}  // namespace verdict::training
