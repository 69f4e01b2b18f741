#include "load/population_input.h"

#include <utility>

#include "api/transaction_json.h"
#include "common/clock.h"
#include "sim/demo_population.h"
#include "sim/simulator.h"

namespace load {

verdict::Result<PopulationLines> PopulationInput(const std::string& name, uint64_t seed) {
  if (name != "demo") {
    return verdict::InvalidArgument("unknown population '" + name + "'; expected demo",
                                    "population");
  }
  const verdict::SimOptions options = verdict::DemoPopulation();
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<verdict::Simulator> sim,
                           verdict::Simulator::Create(options));
  PopulationLines out;
  out.period_us = int64_t{options.days} * verdict::kMicrosPerDay;
  const std::string prefix = "load-" + std::to_string(seed) + "-";
  VERDICT_RETURN_IF_ERROR(sim->Run([&](const verdict::LabelledTransaction& row) {
    verdict::Transaction txn = row.txn;
    txn.transaction_id = prefix + txn.transaction_id;
    out.lines.emplace_back(verdict::CanonicalTransactionJson(txn));
    return verdict::Status::Ok();
  }));
  return out;
}

}  // namespace load
