#include "sim/sim_options.h"

namespace verdict {

Status SimOptions::Validate() const {
  if (accounts < 10 || accounts > 50'000'000) {
    return InvalidArgument("accounts must lie in [10, 50,000,000]", "accounts");
  }
  if (days < 1 || days > 3650) return InvalidArgument("days must lie in [1, 3650]", "days");
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
  return Status::Ok();
}

}  // namespace verdict
