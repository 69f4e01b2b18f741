// SimOptions: the simulator's documented configuration (docs/sim.md). Value type; validated by
// Validate() before use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace verdict {

struct SimOptions {
  uint32_t accounts = 10'000;
  uint32_t days = 30;
  uint64_t seed = 1;
  int64_t start_us = int64_t{1'767'225'600} * 1'000'000;  // 2026-01-01T00:00:00Z
  // Population.
  double business_share = 0.12;
  double foreign_share = 0.10;    // accounts held abroad (GB, DE, FR, MX, CN, IN)
  double remitter_share = 0.005;  // individuals with family in a high-risk country
  // Normal activity, events per account per day unless said otherwise.
  double merchant_rate = 0.15;
  double p2p_rate = 0.05;
  double supplier_rate = 0.4;  // businesses
  // Laundering. 0 = derive: max(2, accounts / 2500) patterns of each typology.
  uint32_t patterns_per_typology = 0;
  double threshold_usd = 10'000;
  // Structuring parts lie in [threshold * (1 - epsilon), threshold); adversarial default 3%.
  double structuring_epsilon = 0.03;
  uint32_t dormant_min_days = 20;  // silence before a dormant account wakes
  std::vector<std::string> high_risk_countries = {"IR", "KP", "MM", "SY", "AF", "YE"};

  Status Validate() const;
  uint32_t PatternsPerTypology() const {
    return patterns_per_typology != 0 ? patterns_per_typology
                                      : (accounts / 2500 > 2 ? accounts / 2500 : 2);
  }
};

}  // namespace verdict
