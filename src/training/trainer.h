// Trainer: `verdict train` as a library. Replays a labelled history through the engine's
// feature code, splits it by time (the last part is held out), trains XGBoost and an isolation
// forest on the training part, scores the hold-out with the engine's own evaluators, fits the
// risk calibration there, and writes the model directory (model.json, manifest.json,
// reference.json, anomaly.txt, risk.json, card.md). One call per training; no shared state.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "formats/transaction_reader.h"
#include "model/isolation_forest.h"
#include "training/detection_metrics.h"
#include "training/isolation_forest_trainer.h"
#include "model/risk_calibration.h"
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
  // Typologies held out of training (`--hold-out-typology`): their positive rows are dropped
  // from the training part (supervised model, anomaly model and risk calibration never see
  // them) and every one of them, in either part, is scored as unseen.
  std::vector<std::string> holdout_typologies;
  // The anomaly model (anomaly.txt), trained on the training part's feature rows; trees = 0:
  // none (risk is then the calibrated score alone).
  IsolationForestParams anomaly;
};

// Recall of one held-out typology's rows (both parts) at each ranking's hold-out threshold.
struct UnseenTypology {
  std::string typology;
  TypologyRecall score;
  TypologyRecall anomaly;
  TypologyRecall risk;
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
  size_t train_dropped_positives = 0;              // held-out typologies' training rows left out
  DetectionReport holdout;                         // by the supervised score
  std::optional<DetectionReport> holdout_anomaly;  // by the anomaly score
  DetectionReport holdout_risk;                    // by risk
  std::vector<UnseenTypology> unseen;              // one per held-out typology
  model::RiskCalibration risk;
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
