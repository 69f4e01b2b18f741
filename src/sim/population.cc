#include "sim/population.h"

#include <cstdio>

namespace verdict {

namespace {

struct CountrySeed {
  const char* code;
  const char* currency;
  double usd;
};
constexpr CountrySeed kHomeAndForeign[] = {
    {"US", "USD", 1.0},   {"GB", "GBP", 1.27},  {"DE", "EUR", 1.08}, {"FR", "EUR", 1.08},
    {"MX", "MXN", 0.058}, {"CN", "CNY", 0.138}, {"IN", "INR", 0.012}};
constexpr size_t kForeignCount = std::size(kHomeAndForeign) - 1;

}  // namespace

std::string Population::AccountId(uint32_t index) const {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "AC%08u", index);
  return buf;
}

std::string Population::BankOf(uint32_t index) const {
  const SimAccount& a = accounts[index];
  std::string bic = "BK";
  bic.push_back(static_cast<char>('A' + a.bank));
  bic.push_back('X');
  bic += countries[a.country].code;
  bic += "22";
  return bic;
}

uint32_t Population::AddAccount(AccountKind kind, uint8_t country) {
  SimAccount a;
  a.kind = kind;
  a.country = country;
  accounts.push_back(a);
  return static_cast<uint32_t>(accounts.size() - 1);
}

uint32_t Population::PopularBusiness(SimRng& rng) const {
  const double u = rng.Uniform();
  return businesses[static_cast<size_t>(u * u * u * static_cast<double>(businesses.size()))];
}

Population BuildPopulation(const SimOptions& options, SimRng& rng) {
  Population p;
  for (const CountrySeed& c : kHomeAndForeign)
    p.countries.push_back({c.code, c.currency, c.usd, false});
  for (const std::string& c : options.high_risk_countries)
    p.countries.push_back({c, "USD", 1.0, true});

  p.accounts.resize(options.accounts);
  for (uint32_t i = 0; i < options.accounts; ++i) {
    SimAccount& a = p.accounts[i];
    a.kind =
        rng.Bernoulli(options.business_share) ? AccountKind::kBusiness : AccountKind::kIndividual;
    a.country =
        rng.Bernoulli(options.foreign_share) ? static_cast<uint8_t>(rng.Int(1, kForeignCount)) : 0;
    a.bank = static_cast<uint8_t>(rng.Int(0, 7));
    if (a.kind == AccountKind::kBusiness) {
      a.pay_day = static_cast<uint8_t>(rng.Int(0, 29));
      a.income_usd = static_cast<float>(rng.LogNormal(1'500, 0.9));
      p.businesses.push_back(i);
    } else {
      a.income_usd = static_cast<float>(rng.LogNormal(3'800, 0.45));
      if (a.country == 0) p.individuals.push_back(i);
    }
  }
  if (p.businesses.empty()) {
    p.accounts[0].kind = AccountKind::kBusiness;
    p.businesses.push_back(0);
  }
  for (uint32_t i = 0; i < options.accounts; ++i) {
    SimAccount& a = p.accounts[i];
    if (a.kind == AccountKind::kIndividual) {
      a.employer = p.PopularBusiness(rng);
      a.peer_count = static_cast<uint8_t>(rng.Int(2, 6));
      for (uint8_t k = 0; k < a.peer_count; ++k) {
        a.peers[k] = static_cast<uint32_t>(rng.Int(0, options.accounts - 1));
      }
      // The first two peers are billers (rent, utilities): businesses.
      a.peers[0] = p.PopularBusiness(rng);
      a.peers[1] = p.businesses[static_cast<size_t>(rng.Int(0, p.businesses.size() - 1))];
    } else {
      a.peer_count = static_cast<uint8_t>(rng.Int(3, 6));
      for (uint8_t k = 0; k < a.peer_count; ++k) {
        a.peers[k] = p.businesses[static_cast<size_t>(rng.Int(0, p.businesses.size() - 1))];
      }
    }
  }
  // Remitters: a relative in a high-risk country, paid monthly (legitimate corridor traffic).
  const size_t remitters = static_cast<size_t>(options.remitter_share * p.individuals.size());
  for (size_t k = 0; k < remitters; ++k) {
    const uint32_t who = p.individuals[static_cast<size_t>(rng.Int(0, p.individuals.size() - 1))];
    const uint8_t country =
        static_cast<uint8_t>(rng.Int(kForeignCount + 1, p.countries.size() - 1));
    const uint32_t family = p.AddAccount(AccountKind::kIndividual, country);
    p.accounts[who].family = family;
  }
  return p;
}

}  // namespace verdict
