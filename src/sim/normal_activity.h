// Normal activity: one day of everyday transfers of the whole population (salaries, bills,
// merchant payments, transfers between friends, supplier invoices, family remittances).
// Stateless functions; deterministic for a given generator state.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/population.h"
#include "sim/sim_options.h"
#include "sim/sim_rng.h"
#include "sim/sim_transaction.h"

namespace verdict {

// Appends day `day`'s normal transfers (timestamps within that day) to *out.
void GenerateNormalDay(const SimOptions& options, const Population& population, uint32_t day,
                       SimRng& rng, std::vector<SimTransaction>* out);

// Minor units of `usd` in the home currency of `account`, at least 1.
int64_t ToSenderMinor(const Population& population, uint32_t account, double usd);

}  // namespace verdict
