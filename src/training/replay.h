// Replay and backtest as a library: reads history with TransactionReader, runs every
// transaction through ReplayPipeline (one engine, or two for a backtest of two policies), and
// reports throughput, outcomes and, with labels, detection metrics. One call per run.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "formats/transaction_reader.h"
#include "training/detection_metrics.h"
#include "training/replay_pipeline.h"

namespace verdict::training {

struct ReplayOptions {
  ReaderOptions reader;
  PipelineOptions pipeline;
  std::string decisions_path;  // non-empty: one JSON line per transaction
  // The decisions file by risk, highest first (ties and rows without a risk in input order)
  // instead of in input order; holds every line in memory until the end.
  bool decisions_by_risk = false;
  double alert_rate = 0.01;  // operating point of the score-based metrics
  std::function<void(size_t rows, double seconds)> progress;  // every 10,000 rows
};

struct ReplayReport {
  std::string input;
  CsvFormat format = CsvFormat::kAuto;
  size_t transactions = 0;  // good rows decided (or refused, see errors)
  size_t bad_rows = 0;
  std::vector<BadRow> bad_row_samples;
  size_t errors = 0;  // decisions the engine refused (e.g. a reused transaction_id)
  std::vector<std::string> error_samples;
  double seconds = 0;
  std::array<size_t, 3> outcomes{};  // allow, review, block
  std::array<size_t, 2> paths{};     // model, fallback
  double alert_rate = 0;             // (review + block) / decided
  PolicyRef policy;
  std::string model;  // "name v(version)", empty without a model
  bool labelled = false;
  // With labels: review or block counted as the alert.
  DetectionReport policy_detection;
  // With labels and a model: the score ranked at `alert_rate`.
  std::optional<DetectionReport> score_detection;
  // With labels and a model with an anomaly model: the anomaly score at `alert_rate`; with
  // labels and a model: risk at `alert_rate` (the score itself without a risk calibration).
  std::optional<DetectionReport> anomaly_detection;
  std::optional<DetectionReport> risk_detection;
  // AMLSim folders: account level, by review/block and by the score at `alert_rate`.
  std::optional<AccountEvaluator::Report> policy_accounts;
  std::optional<AccountEvaluator::Report> score_accounts;
  std::map<std::string, size_t> reason_counts;
};

Result<ReplayReport> Replay(const ReplayOptions& options);
std::string ReplayReportJson(const ReplayReport& report);
std::string ReplayReportText(const ReplayReport& report);

struct BacktestOptions {
  ReaderOptions reader;
  PipelineOptions candidate;  // NEW policy
  PipelineOptions baseline;   // OLD policy (or the fixed rules)
  size_t max_examples = 20;
  std::function<void(size_t rows, double seconds)> progress;
};

struct BacktestChange {
  size_t row = 0;
  std::string transaction_id;
  Outcome before = Outcome::kAllow;
  Outcome after = Outcome::kAllow;
  double score = 0;
  std::vector<std::string> reasons_before;
  std::vector<std::string> reasons_after;
};

struct BacktestReport {
  std::string input;
  size_t transactions = 0;
  size_t bad_rows = 0;
  size_t errors = 0;
  double seconds = 0;
  PolicyRef baseline;
  PolicyRef candidate;
  std::array<size_t, 3> before{};
  std::array<size_t, 3> after{};
  std::array<std::array<size_t, 3>, 3> matrix{};  // [before][after]
  size_t changed = 0;
  std::vector<BacktestChange> examples;  // the first max_examples changed transactions
  bool labelled = false;
  DetectionReport detection_before;
  DetectionReport detection_after;
};

Result<BacktestReport> Backtest(const BacktestOptions& options);
std::string BacktestReportJson(const BacktestReport& report);
std::string BacktestReportText(const BacktestReport& report);

}  // namespace verdict::training
