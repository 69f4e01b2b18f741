#include "sim/sim_options.h"

namespace verdict {

Status SimOptions::Validate() const {
  if (accounts < 200 || accounts > 50'000'000) {
    return InvalidArgument("accounts must lie in [200, 50,000,000]", "accounts");
  }
  if (days < 7 || days > 3650) return InvalidArgument("days must lie in [7, 3650]", "days");
  if (days < dormant_min_days + 5) {
    return InvalidArgument("days must exceed dormant_min_days + 5", "days");
  }
  auto share = [](double v) { return v >= 0 && v <= 1; };
  if (!share(business_share) || !share(foreign_share) || !share(remitter_share)) {
    return InvalidArgument("shares must lie in [0, 1]", "sim");
  }
  if (merchant_rate < 0 || p2p_rate < 0 || supplier_rate < 0 || merchant_rate > 50 ||
      p2p_rate > 50 || supplier_rate > 50) {
    return InvalidArgument("rates must lie in [0, 50]", "sim");
  }
  if (!(threshold_usd >= 100)) return InvalidArgument("threshold must be >= 100", "threshold");
  if (!(structuring_epsilon > 0 && structuring_epsilon <= 0.5)) {
    return InvalidArgument("structuring_epsilon must lie in (0, 0.5]", "structuring_epsilon");
  }
  if (high_risk_countries.empty()) return InvalidArgument("need high-risk countries", "sim");
  if (static_cast<uint64_t>(PatternsPerTypology()) * 7 * 25 > accounts) {
    return InvalidArgument("too many patterns for the population", "patterns_per_typology");
  }
  return Status::Ok();
}

}  // namespace verdict
