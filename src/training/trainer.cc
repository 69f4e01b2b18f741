#include "training/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "common/json_writer.h"
#include "common/rfc3339.h"
#include "common/sha256.h"
#include "features/feature_vector.h"
#include "model/forest.h"
#include "monitor/drift_options.h"
#include "monitor/reference_distribution.h"
#include "training/holdout_evaluation.h"
#include "training/model_card.h"
#include "training/model_directory.h"

namespace verdict::training {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void WriteParams(JsonWriter& w, const BoosterParams& p, double scale_pos_weight) {
  w.BeginObject()
      .Key("objective")
      .String("binary:logistic")
      .Key("rounds")
      .Int(p.rounds)
      .Key("max_depth")
      .Int(p.max_depth)
      .Key("eta")
      .Double(p.eta)
      .Key("threads")
      .Int(p.threads)
      .Key("seed")
      .Uint(p.seed)
      .Key("scale_pos_weight")
      .Double(scale_pos_weight)
      .Key("min_child_weight")
      .Double(p.min_child_weight)
      .Key("subsample")
      .Double(p.subsample)
      .Key("colsample_bytree")
      .Double(p.colsample_bytree)
      .Key("lambda")
      .Double(p.lambda)
      .Key("tree_method")
      .String(p.tree_method)
      .EndObject();
}

// The options' own checks; the indices (in kFeatureNames) of the features to leave out.
Result<std::vector<size_t>> CheckOptions(const TrainOptions& options) {
  if (!(options.holdout_fraction > 0 && options.holdout_fraction < 1)) {
    return InvalidArgument("holdout fraction must be in (0, 1)", "holdout");
  }
  if (!(options.alert_rate > 0 && options.alert_rate <= 1)) {
    return InvalidArgument("alert rate must be in (0, 1]", "alert-rate");
  }
  if (options.booster.rounds < 1 || options.booster.max_depth < 1 || !(options.booster.eta > 0)) {
    return InvalidArgument("rounds and depth must be >= 1 and eta > 0", "rounds");
  }
  std::vector<size_t> excluded;
  for (const std::string& name : options.exclude_features) {
    auto it = std::find(kFeatureNames.begin(), kFeatureNames.end(), name);
    if (it == kFeatureNames.end()) {
      return InvalidArgument("exclude-features: '" + name + "' is not a feature of schema " +
                                 std::string(kFeatureSchemaVersion),
                             "exclude-features");
    }
    excluded.push_back(static_cast<size_t>(it - kFeatureNames.begin()));
  }
  return excluded;
}

// The labelled rows split in time at result.split_us: the training rows' features (excluded
// ones as missing) and labels, and the rows of each part.
struct Split {
  std::vector<float> train_x;
  std::vector<float> train_y;
  std::vector<size_t> train_rows;
  std::vector<size_t> holdout_rows;
};

// Splits the set and counts each part's rows and positives into `result`.
// Positives of a held-out typology are left out of the training part.
Split SplitRows(const TrainOptions& options, const TrainingSet& set,
                const std::vector<size_t>& excluded, TrainResult& result) {
  Split split;
  for (size_t i = 0; i < set.rows; ++i) {
    if (!set.labelled[i]) continue;
    if (set.timestamps[i] < result.split_us) {
      if (IsHeldOutPositive(options, set, i)) {
        ++result.train_dropped_positives;
        continue;
      }
      split.train_rows.push_back(i);
      split.train_x.insert(split.train_x.end(), set.Row(i), set.Row(i) + kFeatureCount);
      for (size_t f : excluded) {
        split.train_x[split.train_x.size() - kFeatureCount + f] =
            std::numeric_limits<float>::quiet_NaN();
      }
      split.train_y.push_back(set.labels[i]);
      result.train_positives += set.labels[i];
    } else {
      split.holdout_rows.push_back(i);
      result.holdout_positives += set.labels[i];
    }
  }
  result.train_rows = split.train_rows.size();
  result.holdout_rows = split.holdout_rows.size();
  return split;
}

// The configured weight of the positive class, or (when negative) negatives per positive.
double ScalePosWeight(const TrainOptions& options, const TrainResult& result) {
  if (options.booster.scale_pos_weight >= 0) return options.booster.scale_pos_weight;
  if (result.train_positives == 0) return 1.0;
  return static_cast<double>(result.train_rows - result.train_positives) /
         static_cast<double>(result.train_positives);
}

// Row i's score with the engine's evaluator, as served.
double Score(const model::Forest& forest, const TrainingSet& set, size_t i) {
  return forest.Probability(forest.PredictMargin(set.Row(i)));
}

// Every held-out typology must name positives of the input, so a misspelt name is an error
// rather than a run that held nothing out.
Status CheckHeldOutTypologies(const TrainOptions& options, const TrainingSet& set) {
  for (const std::string& name : options.holdout_typologies) {
    bool found = false;
    for (size_t i = 0; i < set.rows && !found; ++i) {
      found = set.labels[i] && set.typologies[i] == name;
    }
    if (!found) {
      return InvalidArgument("hold-out-typology: no laundering row of typology '" + name + "'",
                             "hold-out-typology");
    }
  }
  return Status::Ok();
}

// The training rows the reference describes: those whose sender the engine had known for
// reference_min_account_history_days (all when too few qualify, or when it is 0).
std::vector<size_t> ReferenceRows(const TrainOptions& options, const TrainingSet& set,
                                  const std::vector<size_t>& train_rows,
                                  const std::vector<std::string>& names, double* min_days) {
  *min_days = 0;
  const auto age = std::find(names.begin(), names.end(), monitor::kAccountHistoryFeature);
  if (options.reference_min_account_history_days <= 0 || age == names.end()) return train_rows;
  const size_t age_index = static_cast<size_t>(age - names.begin());
  std::vector<size_t> known;
  for (size_t row : train_rows) {
    if (set.Row(row)[age_index] >= options.reference_min_account_history_days) {
      known.push_back(row);
    }
  }
  if (known.size() < kMinReferenceRows) return train_rows;
  *min_days = options.reference_min_account_history_days;
  return known;
}

// Reference distributions of every feature and of the score on (at most reference_max_rows
// of) the reference rows.
Result<monitor::ReferenceDistribution> BuildReference(const TrainOptions& options,
                                                      const TrainingSet& set,
                                                      const std::vector<size_t>& train_rows,
                                                      const std::vector<std::string>& names,
                                                      const model::Forest& forest) {
  monitor::ReferenceBuilder reference(names);
  double min_days = 0;
  const std::vector<size_t> rows = ReferenceRows(options, set, train_rows, names, &min_days);
  const size_t step = std::max<size_t>(
      1, (rows.size() + options.reference_max_rows - 1) / options.reference_max_rows);
  std::vector<double> row(kFeatureCount);
  for (size_t k = 0; k < rows.size(); k += step) {
    const float* r = set.Row(rows[k]);
    for (size_t f = 0; f < kFeatureCount; ++f) row[f] = r[f];
    VERDICT_RETURN_IF_ERROR(reference.AddRow(row, Score(forest, set, rows[k])));
  }
  VERDICT_ASSIGN_OR_RETURN(monitor::ReferenceDistribution distribution, reference.Build());
  distribution.min_account_history_days = min_days;
  return distribution;
}

void WriteTypologyRecall(JsonWriter& w, const TypologyRecall& r) {
  w.BeginObject()
      .Key("positives")
      .Uint(r.positives)
      .Key("detected")
      .Uint(r.detected)
      .Key("recall")
      .Double(r.recall())
      .EndObject();
}

// The manifest's anomaly, risk and held-out typology sections.
void WriteDetectionSections(JsonWriter& w, const TrainOptions& options, const TrainResult& r) {
  w.Key("holdout_typologies").BeginArray();
  for (const std::string& name : options.holdout_typologies) w.String(name);
  w.EndArray().Key("train_dropped_positives").Uint(r.train_dropped_positives);
  if (r.holdout_anomaly) {
    w.Key("anomaly")
        .BeginObject()
        .Key("file")
        .String(kAnomalyFile)
        .Key("trees")
        .Uint(options.anomaly.trees)
        .Key("sample_size")
        .Uint(options.anomaly.sample_size)
        .Key("seed")
        .Uint(options.anomaly.seed)
        .EndObject()
        .Key("holdout_anomaly");
    WriteDetectionJson(w, *r.holdout_anomaly);
  }
  w.Key("risk").Raw(r.risk.Json().substr(0, r.risk.Json().size() - 1)).Key("holdout_risk");
  WriteDetectionJson(w, r.holdout_risk);
  w.Key("unseen").BeginArray();
  for (const UnseenTypology& u : r.unseen) {
    w.BeginObject().Key("typology").String(u.typology).Key("score");
    WriteTypologyRecall(w, u.score);
    if (r.holdout_anomaly) {
      w.Key("anomaly");
      WriteTypologyRecall(w, u.anomaly);
    }
    w.Key("risk");
    WriteTypologyRecall(w, u.risk);
    w.EndObject();
  }
  w.EndArray();
}

// manifest.json: what was trained, from what, how, and how well it detects on the hold-out.
std::string ManifestJson(const TrainOptions& options, const TrainingSet& set,
                         const TrainResult& result, const std::vector<std::string>& names,
                         const BoosterParams& params) {
  std::string manifest;
  JsonWriter w(manifest);
  w.BeginObject()
      .Key("schema")
      .String(kManifestSchema)
      .Key("name")
      .String(options.name)
      .Key("version")
      .String(options.version)
      .Key("feature_schema")
      .String(kFeatureSchemaVersion)
      .Key("features")
      .BeginArray();
  for (const std::string& n : names) w.String(n);
  w.EndArray()
      .Key("sha256")
      .String(result.sha256)
      .Key("trained_at")
      .String(FormatRfc3339Micros(std::chrono::duration_cast<std::chrono::microseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count()))
      .Key("trainer")
      .String("verdict train (XGBoost " + XgboostVersion() + " C API)")
      .Key("input")
      .String(options.reader.path)
      .Key("format")
      .String(CsvFormatName(set.format))
      .Key("rows")
      .Uint(result.rows)
      .Key("bad_rows")
      .Uint(result.bad_rows)
      .Key("unlabelled_rows")
      .Uint(result.unlabelled_rows)
      .Key("positives")
      .Uint(set.positives)
      .Key("split")
      .BeginObject()
      .Key("holdout_fraction")
      .Double(options.holdout_fraction)
      .Key("holdout_from")
      .String(FormatRfc3339Micros(result.split_us))
      .Key("train_rows")
      .Uint(result.train_rows)
      .Key("train_positives")
      .Uint(result.train_positives)
      .Key("holdout_rows")
      .Uint(result.holdout_rows)
      .Key("holdout_positives")
      .Uint(result.holdout_positives)
      .EndObject()
      .Key("params");
  WriteParams(w, params, params.scale_pos_weight);
  w.Key("excluded_features").BeginArray();
  for (const std::string& name : options.exclude_features) w.String(name);
  w.EndArray();
  w.Key("trees").Uint(result.trees).Key("alert_rate").Double(options.alert_rate);
  w.Key("holdout");
  WriteDetectionJson(w, result.holdout);
  if (result.holdout_accounts) {
    w.Key("holdout_accounts");
    WriteAccountJson(w, *result.holdout_accounts);
  }
  WriteDetectionSections(w, options, result);
  w.EndObject();
  manifest += "\n";
  return manifest;
}

}  // namespace

Result<TrainResult> Train(const TrainOptions& options, const Log& log) {
  auto say = [&log](const std::string& text) {
    if (log) log(text);
  };
  VERDICT_ASSIGN_OR_RETURN(const std::vector<size_t> excluded, CheckOptions(options));
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return Internal(options.out_dir + ": cannot create: " + ec.message());

  const auto start = std::chrono::steady_clock::now();
  say("reading " + options.reader.path + " and computing features");
  VERDICT_ASSIGN_OR_RETURN(
      TrainingSet set,
      LoadTrainingSet(
          options.reader, [&](size_t rows) { say("features: " + std::to_string(rows) + " rows"); },
          options.label_overrides.empty() ? nullptr : &options.label_overrides));
  TrainResult result;
  result.input = options.reader.path;
  result.format = set.format;
  result.rows = set.rows;
  result.case_labels = set.overridden_labels;
  result.bad_rows = set.stats.bad_rows;
  result.unlabelled_rows = set.rows - set.labelled_rows;
  result.accounts = set.accounts;
  result.features_seconds = SecondsSince(start);
  result.split_us = HoldoutSplitTime(set, options.holdout_fraction);

  VERDICT_RETURN_IF_ERROR(CheckHeldOutTypologies(options, set));
  Split split = SplitRows(options, set, excluded, result);
  if (split.holdout_rows.empty()) return InvalidArgument("the hold-out part is empty", "holdout");
  say("split at " + FormatRfc3339Micros(result.split_us) + ": " +
      std::to_string(result.train_rows) + " training rows (" +
      std::to_string(result.train_positives) + " laundering), " +
      std::to_string(result.holdout_rows) + " held out (" +
      std::to_string(result.holdout_positives) + " laundering)");

  std::vector<std::string> names(kFeatureNames.begin(), kFeatureNames.end());
  BoosterParams params = options.booster;
  params.scale_pos_weight = ScalePosWeight(options, result);
  const auto train_start = std::chrono::steady_clock::now();
  say("training " + std::to_string(params.rounds) + " rounds, depth " +
      std::to_string(params.max_depth));
  VERDICT_ASSIGN_OR_RETURN(
      std::string model_json,
      TrainBooster(split.train_x, split.train_y, names, params, [&](int round) {
        if ((round + 1) % 50 == 0) say("round " + std::to_string(round + 1));
      }));
  result.training_seconds = SecondsSince(train_start);
  split.train_x = {};
  split.train_y = {};

  // Scored with the engine's evaluator, as served.
  VERDICT_ASSIGN_OR_RETURN(auto forest, model::Forest::LoadXGBoostJson(model_json));
  result.sha256 = Sha256Hex(model_json);
  result.trees = forest->num_trees();
  result.model_bytes = model_json.size();
  std::shared_ptr<const model::IsolationForest> anomaly;
  if (options.anomaly.trees > 0) {
    say("training the anomaly model: " + std::to_string(options.anomaly.trees) + " trees");
    IsolationForestParams anomaly_params = options.anomaly;
    anomaly_params.excluded_features = excluded;
    anomaly = TrainIsolationForest(set.x, kFeatureCount, split.train_rows, anomaly_params);
  }
  EvaluateHoldout(options, set, split.holdout_rows, *forest, anomaly.get(), result);

  say("building reference distributions");
  VERDICT_ASSIGN_OR_RETURN(monitor::ReferenceDistribution distribution,
                           BuildReference(options, set, split.train_rows, names, *forest));

  result.manifest_json = ManifestJson(options, set, result, names, params);
  VERDICT_RETURN_IF_ERROR(WriteFileAtomically(options.out_dir + "/" + kModelFile, model_json));
  VERDICT_RETURN_IF_ERROR(
      monitor::WriteReferenceFile(distribution, options.out_dir + "/" + kReferenceFile));
  if (anomaly) {
    VERDICT_RETURN_IF_ERROR(
        WriteFileAtomically(options.out_dir + "/" + kAnomalyFile, anomaly->Serialize()));
  }
  VERDICT_RETURN_IF_ERROR(
      WriteFileAtomically(options.out_dir + "/" + kRiskFile, result.risk.Json()));
  VERDICT_RETURN_IF_ERROR(WriteFileAtomically(options.out_dir + "/" + kCardFile,
                                              ModelCardMarkdown(options, result, names)));
  VERDICT_RETURN_IF_ERROR(
      WriteFileAtomically(options.out_dir + "/" + kManifestFile, result.manifest_json));
  say("wrote " + options.out_dir + " (" + std::to_string(result.trees) + " trees, " +
      std::to_string(model_json.size()) + " bytes)");
  return result;
}

}  // namespace verdict::training
