// The simulated population: account profiles (individuals and businesses, home country and
// bank, income, habitual counterparties) built from SimOptions and a seed. Built once by the
// Simulator, then read-only; safe to share once built.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sim_options.h"
#include "sim/sim_rng.h"

namespace verdict {

enum class AccountKind : uint8_t { kIndividual, kBusiness };

struct SimAccount {
  AccountKind kind = AccountKind::kIndividual;
  uint8_t country = 0;    // index into SimCountries()
  uint8_t bank = 0;       // 0..7 within the country
  uint8_t pay_day = 0;    // businesses: day of the 30-day month they pay salaries
  bool dormant = false;   // silent from day 2 on (until a dormant-activation pattern)
  bool reserved = false;  // taken by a laundering pattern
  uint8_t peer_count = 0;
  float income_usd = 0;          // individuals: monthly salary; businesses: typical invoice
  uint32_t employer = 0;         // individuals: the business paying their salary
  uint32_t family = UINT32_MAX;  // remitters: their relative abroad
  uint32_t peers[6] = {};        // friends (individuals) or suppliers and billers (businesses)
};

struct SimCountry {
  std::string code;      // ISO 3166-1 alpha-2
  std::string currency;  // ISO 4217
  double usd_per_unit;   // the simulator's static conversion rate
  bool high_risk;
};

struct Population {
  std::vector<SimCountry> countries;  // [0] is the home country (US)
  std::vector<SimAccount> accounts;
  std::vector<uint32_t> individuals;  // domestic individuals
  std::vector<uint32_t> businesses;   // all businesses, large employers and merchants first

  std::string AccountId(uint32_t index) const;
  std::string BankOf(uint32_t index) const;  // an 8-character BIC naming the country
  // Adds an account in `country` (beneficiaries abroad); returns its index.
  uint32_t AddAccount(AccountKind kind, uint8_t country);
  // A business chosen with a heavy-tailed popularity (a few big employers and merchants).
  uint32_t PopularBusiness(SimRng& rng) const;
};

Population BuildPopulation(const SimOptions& options, SimRng& rng);

}  // namespace verdict
