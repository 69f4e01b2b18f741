// PopulationInput: verdict-load's `--population demo` input: the demo population's month
// (sim/demo_population.h) as request lines, in time order, with transaction ids of their own
// ("load-<seed>-<simulated id>") so that they never meet the ids of the demo's imported history.
// Sent in a loop, each round a month later (InputLine's period), the load then has the
// behaviour the demo model was trained on at any rate: the engine's features follow the
// transactions' event time, not the rate they arrive at. Stateless function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "load/input_request.h"

namespace load {

struct PopulationLines {
  std::vector<InputLine> lines;
  int64_t period_us = 0;  // the month the lines span: how far each round moves them
};

// `name`: the population ("demo" is the one there is); `seed` goes into the ids.
verdict::Result<PopulationLines> PopulationInput(const std::string& name, uint64_t seed);

}  // namespace load
