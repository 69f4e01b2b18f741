// DriftOptions: the [drift] settings of the live drift monitor, with documented defaults
// (docs/drift.md). Value type; read-only once the monitor starts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "monitor/drift_statistics.h"

namespace verdict::monitor {

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
  // Combined drift score (on the score distribution) at or above which the level is L1, L2, L3.
  // L1: log and snapshot; L2: run the retrain hook; L3 (strictly above l3): freeze the model.
  double l1 = 0.05;
  double l2 = 0.15;
  double l3 = 0.30;
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
