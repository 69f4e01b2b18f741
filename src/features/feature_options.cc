#include "features/feature_options.h"

#include "core/currency.h"

namespace verdict {

Status FeatureOptions::Validate() const {
  for (double t : reporting_thresholds_usd) {
    if (!(t > 0)) return InvalidArgument("thresholds must be positive", "features.thresholds");
  }
  if (!(threshold_band > 0 && threshold_band < 1)) {
    return InvalidArgument("band must lie in (0, 1)", "features.threshold_band");
  }
  if (round_multiple_major <= 0) {
    return InvalidArgument("must be positive", "features.round_multiple_major");
  }
  for (const std::string& c : high_risk_countries) {
    if (!IsCountryCode(c)) {
      return InvalidArgument("not an ISO 3166-1 code: " + c, "features.high_risk_countries");
    }
  }
  if (late_tolerance_us < 0) return InvalidArgument("negative", "features.late_tolerance");
  if (cycle_window_us <= 0) return InvalidArgument("must be positive", "features.cycle_window");
  if (unusual_repeat_window_us <= 0 || unusual_half_life_us <= 0 || !(unusual_log_zscore > 0)) {
    return InvalidArgument("counterparty-risk settings must be positive", "features.unusual");
  }
  if (max_recent_events < 1 || max_recent_events > 4096 || max_peers < 1 || max_peers > 1024 ||
      max_paths < 1 || max_paths > 1024) {
    return InvalidArgument("set bounds out of range", "features");
  }
  return Status::Ok();
}

}  // namespace verdict
