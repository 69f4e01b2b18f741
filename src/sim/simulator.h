// Simulator: a synthetic population with normal activity and injected, labelled laundering
// patterns, streamed in time order as LabelledTransactions (docs/sim.md). Deterministic: the
// same SimOptions (seed included) give the same transactions, in the same order. Owns its
// population and plan; Run may be called repeatedly; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/labelled_transaction.h"
#include "sim/population.h"
#include "sim/sim_options.h"
#include "sim/typologies.h"

namespace verdict {

struct SimSummary {
  size_t accounts = 0;
  size_t transactions = 0;
  size_t laundering = 0;
  size_t patterns = 0;
  std::map<std::string, size_t> laundering_by_typology;
  // Typologies left out (wholly or in part) because they did not fit, with why.
  std::vector<std::string> warnings;
};

class Simulator {
 public:
  using Sink = std::function<Status(const LabelledTransaction&)>;
  using Progress = std::function<void(uint32_t days_done, uint32_t days)>;

  static Result<std::unique_ptr<Simulator>> Create(const SimOptions& options);

  // Streams every transaction to `sink` in (timestamp, generation) order; stops at the first
  // error the sink returns. `progress` (optional) is called after each simulated day.
  Status Run(const Sink& sink, const Progress& progress = {});

  const SimOptions& options() const { return options_; }
  const Population& population() const { return population_; }
  const std::vector<SimPattern>& patterns() const { return patterns_; }
  // Typologies left out because they did not fit the population or the period (PlanPatterns).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Totals of the last Run.
  const SimSummary& summary() const { return summary_; }

 private:
  explicit Simulator(const SimOptions& options) : options_(options) {}
  void ToLabelled(const SimTransaction& t, uint64_t number, LabelledTransaction* out) const;

  SimOptions options_;
  Population population_;
  std::vector<SimPattern> patterns_;
  std::vector<SimTransaction> pattern_txns_;  // sorted by (timestamp, sequence)
  std::vector<std::string> warnings_;
  SimSummary summary_;
};

// Runs the simulator into a verdict CSV file (docs/sim.md) and returns the totals.
Result<SimSummary> WriteSimCsv(const SimOptions& options, const std::string& path,
                               const Simulator::Progress& progress = {});

}  // namespace verdict
