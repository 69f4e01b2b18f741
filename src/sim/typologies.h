// Laundering typologies: plans the injected patterns (structuring, fan-in, fan-out, cycle,
// pass-through, dormant-account activation, high-risk corridor) over a population, as labelled
// SimTransactions. Stateless functions; deterministic for a given generator state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/population.h"
#include "sim/sim_options.h"
#include "sim/sim_rng.h"
#include "sim/sim_transaction.h"

namespace verdict {

inline constexpr std::string_view kTypologies[] = {
    "structuring",       "fan_in", "fan_out", "cycle", "pass_through", "dormant_activation",
    "high_risk_corridor"};

struct SimPattern {
  std::string id;                  // e.g. "structuring-0003"
  std::string typology;            // one of kTypologies
  std::vector<uint32_t> accounts;  // participants, in the order the typology uses them
  int64_t original_minor = 0;      // structuring: the sum that was split (USD cents)
  size_t transactions = 0;
};

// Plans options.PatternsPerTypology() patterns of each typology; marks the accounts they take
// (reserved, dormant) and may add accounts abroad. Appends their transfers to *txns. Patterns
// that do not fit (too few unused accounts, too few days) are left out, each typology's with
// one message in *warnings naming it and why.
void PlanPatterns(const SimOptions& options, Population& population, SimRng& rng,
                  std::vector<SimPattern>* patterns, std::vector<SimTransaction>* txns,
                  std::vector<std::string>* warnings);

}  // namespace verdict
