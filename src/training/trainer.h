// Trainer: `verdict train` as a library. Replays a labelled history through the engine's
// feature code, splits it by time (the last part is held out), trains XGBoost, scores the
// hold-out with the engine's own forest evaluator, and writes the model directory
// (model.json, manifest.json, reference.json). One call per training; no shared state.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "formats/transaction_reader.h"
#include "training/detection_metrics.h"
#include "training/training_set.h"
#include "training/xgboost_booster.h"

namespace verdict::training {

// Fewest rows a reference restricted to known senders may have before all rows are used.
inline constexpr size_t kMinReferenceRows = 1000;

struct TrainOptions {
  ReaderOptions reader;
  std::string out_dir;
  std::string name = "aml";
  std::string version = "1";
  double holdout_fraction = 0.2;  // the last part of the history, by time
  double alert_rate = 0.01;       // the operating point the report is given at
  BoosterParams booster;
  // The reference distributions use at most this many training rows (evenly spaced).
  size_t reference_max_rows = 1'000'000;
  // ... and only rows whose sender the engine had known for at least this many days, as the
  // live drift watch counts by default ([drift] min_account_history_days): a history's first
  // days, when every account is new and its windows are empty, are not what a warm engine sees.
  // When fewer than kMinReferenceRows rows qualify, every row is used (recorded as 0).
  double reference_min_account_history_days = 7;
  // Labels by transaction id that replace the input's (`--labels-from-cases`); empty: none.
  LabelOverrides label_overrides;
  // Features the model may not use (`--exclude-features`): given to XGBoost as missing in every
  // training row, so no tree splits on them. For features that leak how the data was made (a
  // simulator's channel mix, say) rather than behaviour.
  std::vector<std::string> exclude_features;
};

struct TrainResult {
  std::string input;
  CsvFormat format = CsvFormat::kAuto;
  size_t rows = 0;
  size_t bad_rows = 0;
  size_t unlabelled_rows = 0;
  size_t case_labels = 0;  // rows labelled by label_overrides
  size_t accounts = 0;
  int64_t split_us = 0;
  size_t train_rows = 0;
  size_t train_positives = 0;
  size_t holdout_rows = 0;
  size_t holdout_positives = 0;
  DetectionReport holdout;
  std::optional<AccountEvaluator::Report> holdout_accounts;  // AMLSim folders
  std::string sha256;
  size_t trees = 0;
  size_t model_bytes = 0;
  double features_seconds = 0;
  double training_seconds = 0;
  std::string manifest_json;  // what was written to manifest.json
};

using Log = std::function<void(std::string_view)>;

Result<TrainResult> Train(const TrainOptions& options, const Log& log = {});

}  // namespace verdict::training
