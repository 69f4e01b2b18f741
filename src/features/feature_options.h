// FeatureOptions: the configuration of the feature engine (thresholds, windows, lists, FX).
// Value type; validated once by Validate() and then read-only, so safe to share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "features/fx_table.h"

namespace verdict {

struct FeatureOptions {
  // Reporting thresholds in USD-equivalent; an amount is "near" one when it lies in
  // [threshold * (1 - band), threshold).
  std::vector<double> reporting_thresholds_usd = {10'000.0};
  double threshold_band = 0.10;
  // An amount is round when it is a whole multiple of this many major units of its currency.
  int64_t round_multiple_major = 100;
  // High-risk jurisdictions (ISO 3166-1 alpha-2); illustrative default, replace per policy.
  std::vector<std::string> high_risk_countries = {"AF", "IR", "KP", "MM", "SY", "YE"};
  // A transaction older than the account's newest event by more than this is "late": its
  // features are computed from what is still kept and it is counted (late_events).
  int64_t late_tolerance_us = int64_t{3600} * 1'000'000;
  // Cycles: every hop of a closing path must start within this window before the transfer.
  int64_t cycle_window_us = int64_t{7} * 24 * 3600 * 1'000'000;
  // Counterparty risk (features-3): a transfer is unusual when the sender already paid the
  // receiver within the repeat window, or its amount's log z-score against the sender's usual
  // exceeds unusual_log_zscore; counts of unusual transfers fade with the half-life.
  int64_t unusual_repeat_window_us = int64_t{24} * 3600 * 1'000'000;
  double unusual_log_zscore = 3.0;
  int64_t unusual_half_life_us = int64_t{30} * 24 * 3600 * 1'000'000;
  // Bounds on the per-account sets (memory).
  uint32_t max_recent_events = 32;  // exact events per side; more go to hour buckets
  uint32_t max_peers = 16;          // counterparties remembered per side
  uint32_t max_paths = 4;           // 2-hop and 3-hop predecessors each
  FxTable fx = FxTable::Default();

  Status Validate() const;
};

}  // namespace verdict
