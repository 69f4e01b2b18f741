// DemoPopulation: the simulated population of the demo (`make run`, `serve --demo-traffic`,
// `verdict sim --demo-population`, `verdict-load --population demo`): the kind the bundled demo
// model was trained on (scripts/demo-model: 10,000 accounts, the simulator's share of laundering
// patterns), at its own seed and start, so that its traffic is new but its distributions are the
// model's own. Its first month is the demo's imported history. Pure function.
#pragma once

#include <cstdint>

#include "sim/sim_options.h"

namespace verdict {

inline SimOptions DemoPopulation() {
  SimOptions options;
  options.accounts = 10'000;
  options.days = 30;
  options.seed = 17;
  options.start_us = int64_t{1'764'633'600} * 1'000'000;  // 2025-12-02T00:00:00Z
  return options;
}

}  // namespace verdict
