// DriftOptions: the [drift] settings of the live drift monitor, with documented defaults
// (docs/drift.md). Value type; read-only once the monitor starts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "monitor/drift_statistics.h"

namespace verdict::monitor {

// The feature that says how long the engine has known the sender (min_account_history_days).
inline constexpr std::string_view kAccountHistoryFeature = "sender_account_age_days";

struct DriftOptions {
  // false: no monitor even when the model has a reference.json.
  bool enabled = true;
  // Sliding time windows, in seconds, kept as a ring of 1 s buckets.
  std::vector<int64_t> windows_s = {60, 300};
  // Count windows: the most recent whole 1 s buckets holding at least this many decisions
  // (bounded by the longest time window's history).
  std::vector<uint64_t> count_windows = {1000, 10000};
  // A window with fewer scored decisions than this is reported but does not set the level.
  uint64_t min_count = 200;
  // Only decisions whose sender the engine has known for at least this many days (the feature
  // kAccountHistoryFeature) count in the windows: a new account's features (no velocity, no
  // counterparties yet) look nothing like the reference's, so a fresh engine, or a wave of new
  // customers, would otherwise read as drift. 0: every decision counts.
  double min_account_history_days = 7;
  // Combined drift score (on the score distribution) at or above which the level is L1, L2, L3.
  // L1: log and snapshot; L2: run the retrain hook; L3 (strictly above l3): alert, and freeze
  // the model if freeze_model.
  double l1 = 0.05;
  double l2 = 0.15;
  double l3 = 0.30;
  // A level holds only once this many consecutive, non-overlapping evaluations reach it: the
  // current one and those at the ends of the escalate_after_windows - 1 periods before it, a
  // period being the shortest time window. One noisy window (a burst of one pattern, an hour
  // unlike the day) never escalates. 1: the current evaluation alone.
  int64_t escalate_after_windows = 3;
  // L3 freezes the model (every decision takes the fallback path, DRIFT_FREEZE) until an
  // operator clears it. false: L3 raises an alert (metric, log, journaled drift.alert) and runs
  // the retrain hook, and the model keeps deciding.
  bool freeze_model = false;
  DriftWeights weights;
  // Escalation alert: the score rises past escalation_first and then past escalation_second
  // within escalation_window_s.
  double escalation_first = 0.7;
  double escalation_second = 0.85;
  int64_t escalation_window_s = 30;
  // Per-feature flags reported in GET /v1/drift (common practice): PSI warn / alert, KS p-value,
  // normalized Wasserstein-1, Jensen-Shannon distance. A feature PSI alert also raises L1.
  double psi_warn = 0.1;
  double psi_alert = 0.2;
  double ks_p_value = 0.05;
  double wasserstein = 0.1;
  double js = 0.1;
  // Retrain hook for L2: a command (argv, run without a shell) and/or an HTTP POST webhook
  // ("http://127.0.0.1:9000/retrain"; plain HTTP only). Run at most once per cooldown.
  std::vector<std::string> retrain_command;
  std::string retrain_webhook;
  int64_t retrain_cooldown_s = 600;
  // How often the monitor thread merges counters and evaluates, in milliseconds.
  int64_t evaluate_interval_ms = 1000;
};

// Checks ranges and ordering; the field names the [drift] key ("drift.l2").
Status ValidateDriftOptions(const DriftOptions& options);

// The level a combined drift score sets (L3 strictly above l3, L2 from l2, L1 from l1); a
// feature's PSI alert raises level 0 to L1. Shared by the live monitor and the offline report.
int DriftLevel(double drift_score, bool feature_alert, const DriftOptions& options);

}  // namespace verdict::monitor
