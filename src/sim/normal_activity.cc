#include "sim/normal_activity.h"

#include <algorithm>
#include <cmath>

namespace verdict {

namespace {

constexpr int64_t kUsPerMinute = 60 * int64_t{1'000'000};
constexpr int64_t kUsPerDay = 1440 * kUsPerMinute;

// A time of day: mostly business hours, sometimes any time.
int64_t TimeOfDay(SimRng& rng) {
  if (rng.Bernoulli(0.1)) return rng.Int(0, 1439) * kUsPerMinute + rng.Int(0, 59'999'999);
  return rng.Int(7 * 60, 21 * 60 - 1) * kUsPerMinute + rng.Int(0, 59'999'999);
}

}  // namespace

int64_t ToSenderMinor(const Population& population, uint32_t account, double usd) {
  const SimCountry& c = population.countries[population.accounts[account].country];
  const int64_t minor = static_cast<int64_t>(std::llround(usd / c.usd_per_unit * 100.0));
  return std::max<int64_t>(minor, 1);
}

void GenerateNormalDay(const SimOptions& options, const Population& population, uint32_t day,
                       SimRng& rng, std::vector<SimTransaction>* out) {
  const int64_t day_start = options.start_us + static_cast<int64_t>(day) * kUsPerDay;
  const auto& accounts = population.accounts;
  const uint32_t month_day = day % 30;
  auto silent = [&](uint32_t a) { return accounts[a].dormant && day >= 2; };
  auto emit = [&](uint32_t from, uint32_t to, double usd, SimChannel channel, SimType type,
                  int64_t time_of_day) {
    if (from == to || silent(from) || silent(to)) return;
    SimTransaction t;
    t.timestamp_us = day_start + time_of_day;
    t.sender = from;
    t.receiver = to;
    t.amount_minor = ToSenderMinor(population, from, usd);
    t.channel = channel;
    t.type = type;
    out->push_back(t);
  };
  const uint32_t n = options.accounts;  // the base population; added accounts only receive
  for (uint32_t i = 0; i < n; ++i) {
    const SimAccount& a = accounts[i];
    if (a.kind == AccountKind::kIndividual) {
      const SimAccount& employer = accounts[a.employer];
      if (employer.pay_day == month_day) {
        emit(a.employer, i, a.income_usd * rng.LogNormal(1.0, 0.03), SimChannel::kAch,
             SimType::kSalary, 9 * 60 * kUsPerMinute + rng.Int(0, 59) * kUsPerMinute);
      }
      for (uint32_t k = 0; k < 2; ++k) {  // rent and utilities, monthly
        if ((i + 11 * k) % 30 == month_day) {
          const double share = k == 0 ? 0.3 : 0.05;
          emit(i, a.peers[k], a.income_usd * share * rng.LogNormal(1.0, 0.1), SimChannel::kAch,
               SimType::kPayment, TimeOfDay(rng));
        }
      }
      for (int k = rng.Poisson(options.merchant_rate); k > 0; --k) {
        emit(i, population.PopularBusiness(rng), rng.LogNormal(45, 0.9),
             rng.Bernoulli(0.05) ? SimChannel::kCash : SimChannel::kCard, SimType::kPayment,
             TimeOfDay(rng));
      }
      for (int k = rng.Poisson(options.p2p_rate); k > 0; --k) {
        const uint32_t friend_index = a.peer_count > 2 ? 2 + rng.Int(0, a.peer_count - 3) : 0;
        emit(i, a.peers[friend_index], rng.LogNormal(60, 1.0),
             rng.Bernoulli(0.5) ? SimChannel::kMobile : SimChannel::kOnline, SimType::kTransfer,
             TimeOfDay(rng));
      }
      if (a.family != UINT32_MAX && (i * 7) % 30 == month_day) {
        emit(i, a.family, rng.LogNormal(300, 0.3), SimChannel::kWire, SimType::kTransfer,
             TimeOfDay(rng));
      }
    } else {
      for (int k = rng.Poisson(options.supplier_rate); k > 0; --k) {
        emit(i, a.peers[rng.Int(0, a.peer_count - 1)], rng.LogNormal(a.income_usd, 1.0),
             rng.Bernoulli(0.6) ? SimChannel::kAch : SimChannel::kWire, SimType::kPayment,
             TimeOfDay(rng));
      }
    }
  }
}

}  // namespace verdict
