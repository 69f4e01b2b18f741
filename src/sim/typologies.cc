#include "sim/typologies.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace verdict {

namespace {

constexpr int64_t kUsPerMinute = 60 * int64_t{1'000'000};
constexpr int64_t kUsPerHour = 60 * kUsPerMinute;
constexpr int64_t kUsPerDay = 24 * kUsPerHour;

class Planner {
 public:
  Planner(const SimOptions& o, Population& p, SimRng& rng, std::vector<SimPattern>* patterns,
          std::vector<SimTransaction>* txns)
      : o_(o), p_(p), rng_(rng), patterns_(patterns), txns_(txns) {}

  void Run(std::vector<std::string>* warnings) {
    const uint32_t n = o_.PatternsPerTypology();
    free_mules_ = 0;
    for (uint32_t a : p_.individuals) free_mules_ += IsFreeMule(p_.accounts[a]) ? 1 : 0;
    for (std::string_view typology : kTypologies) {
      for (uint32_t k = 0; k < n; ++k) {
        // A pattern that does not fit the population or the period is left out, and so are
        // the typology's remaining ones: a small simulation is still a simulation.
        if (const std::string why = WhyItDoesNotFit(typology); !why.empty()) {
          const std::string skipped =
              k == 0 ? "skipped" : std::to_string(n - k) + " of " + std::to_string(n) + " skipped";
          warnings->push_back("typology " + std::string(typology) + " " + skipped + ": " + why);
          break;
        }
        SimPattern pattern;
        char id[64];
        std::snprintf(id, sizeof(id), "%.*s-%04u", static_cast<int>(typology.size()),
                      typology.data(), k);
        pattern.id = id;
        pattern.typology = std::string(typology);
        patterns_->push_back(std::move(pattern));
        current_ = static_cast<int32_t>(patterns_->size() - 1);
        if (typology == "structuring") Structuring();
        if (typology == "fan_in") FanIn();
        if (typology == "fan_out") FanOut();
        if (typology == "cycle") Cycle();
        if (typology == "pass_through") PassThrough();
        if (typology == "dormant_activation") Dormant();
        if (typology == "high_risk_corridor") Corridor();
      }
    }
  }

 private:
  SimPattern& pattern() { return (*patterns_)[static_cast<size_t>(current_)]; }

  // The most domestic individuals one pattern of `typology` takes as mules (the planners below).
  static uint32_t MostMules(std::string_view typology) {
    if (typology == "fan_in" || typology == "fan_out") return 22;
    if (typology == "pass_through" || typology == "dormant_activation") return 8;
    if (typology == "structuring" || typology == "cycle") return 4;
    return 1;  // high_risk_corridor: its beneficiaries are new accounts abroad
  }

  // Why one more pattern of `typology` cannot be planned; empty when it can.
  std::string WhyItDoesNotFit(std::string_view typology) const {
    if (typology == "dormant_activation" && o_.days < o_.dormant_min_days + 5) {
      return "a dormant account needs " + std::to_string(o_.dormant_min_days + 5) +
             " days (silence, then activation), the simulation has " + std::to_string(o_.days);
    }
    if (free_mules_ < MostMules(typology)) {
      return "a pattern takes up to " + std::to_string(MostMules(typology)) +
             " unused domestic individuals, " + std::to_string(free_mules_) + " are left";
    }
    return "";
  }

  static bool IsFreeMule(const SimAccount& acc) {
    return !acc.reserved && !acc.dormant && acc.family == UINT32_MAX;
  }

  // A free domestic individual, reserved for the current pattern. WhyItDoesNotFit has checked
  // that enough are left; a random pick that keeps missing falls back to the first free one.
  uint32_t TakeMule() {
    auto take = [this](uint32_t a) {
      p_.accounts[a].reserved = true;
      --free_mules_;
      pattern().accounts.push_back(a);
      return a;
    };
    for (int attempt = 0; attempt < 10'000; ++attempt) {
      const uint32_t a =
          p_.individuals[static_cast<size_t>(rng_.Int(0, p_.individuals.size() - 1))];
      if (IsFreeMule(p_.accounts[a])) return take(a);
    }
    for (uint32_t a : p_.individuals) {
      if (IsFreeMule(p_.accounts[a])) return take(a);
    }
    const uint32_t a = p_.individuals[0];  // unreachable after WhyItDoesNotFit
    pattern().accounts.push_back(a);
    return a;
  }

  int64_t DayStart(int64_t day) const { return o_.start_us + day * kUsPerDay; }
  int64_t StartDay(int64_t span_days) {
    const int64_t warm = std::min<int64_t>(7, o_.days / 4);
    return rng_.Int(warm, std::max<int64_t>(warm, o_.days - span_days - 1));
  }
  int64_t Cents(double usd) { return std::max<int64_t>(100, std::llround(usd * 100)); }

  void Add(uint32_t from, uint32_t to, int64_t usd_cents, int64_t ts, SimChannel channel) {
    SimTransaction t;
    t.timestamp_us = std::min(ts, DayStart(o_.days) - 1);
    t.sender = from;
    t.receiver = to;
    t.amount_minor = usd_cents;
    t.usd_exact = true;
    t.channel = channel;
    t.type = SimType::kTransfer;
    t.pattern = current_;
    txns_->push_back(t);
    ++pattern().transactions;
  }

  // Splits `total` cents into `n` parts each in [lo, hi]; requires n*lo <= total <= n*hi.
  std::vector<int64_t> Split(int64_t total, int n, int64_t lo, int64_t hi) {
    std::vector<int64_t> parts(static_cast<size_t>(n), lo);
    int64_t left = total - n * lo;
    std::vector<double> w(static_cast<size_t>(n));
    double sum = 0;
    for (double& x : w) sum += (x = 0.05 + rng_.Uniform());
    for (int i = 0; i < n; ++i) {
      const int64_t add = std::min<int64_t>(
          hi - lo, static_cast<int64_t>(static_cast<double>(total - n * lo) * w[i] / sum));
      parts[i] += std::min(add, left);
      left -= std::min(add, left);
    }
    for (int i = 0; left > 0; i = (i + 1) % n) {
      const int64_t add = std::min(hi - parts[i], left);
      parts[i] += add;
      left -= add;
    }
    return parts;
  }

  void Structuring() {
    const uint32_t source = TakeMule();
    const int receivers = rng_.Bernoulli(0.5) ? 1 : 3;
    std::vector<uint32_t> to;
    for (int i = 0; i < receivers; ++i) to.push_back(TakeMule());
    const int n = static_cast<int>(rng_.Int(3, 10));
    const int64_t hi = std::llround(o_.threshold_usd * 100) - 1;
    const int64_t lo =
        static_cast<int64_t>(std::ceil(o_.threshold_usd * (1 - o_.structuring_epsilon) * 100));
    const int64_t total = rng_.Int(n * lo + n, n * hi - n);
    pattern().original_minor = total;
    const int64_t span = rng_.Int(1, 4);
    const int64_t day = StartDay(span);
    for (int64_t part : Split(total, n, lo, hi)) {
      const int64_t ts = DayStart(day) + rng_.Int(0, span * kUsPerDay - 1);
      Add(source, to[static_cast<size_t>(rng_.Int(0, receivers - 1))], part, ts,
          rng_.Bernoulli(0.4) ? SimChannel::kCash : SimChannel::kOnline);
    }
  }

  void FanIn() {
    const uint32_t collector = TakeMule();
    const int k = static_cast<int>(rng_.Int(8, 20));
    const int64_t day = StartDay(3);
    int64_t total = 0;
    for (int i = 0; i < k; ++i) {
      const uint32_t source = TakeMule();
      const int64_t cents = Cents(rng_.LogNormal(4'000, 0.4));
      total += cents;
      Add(source, collector, cents, DayStart(day) + rng_.Int(0, 2 * kUsPerDay - 1),
          SimChannel::kOnline);
    }
    const uint32_t out = TakeMule();
    Add(collector, out, total * 9 / 10, DayStart(day + 2) + rng_.Int(0, kUsPerDay - 1),
        SimChannel::kWire);
  }

  void FanOut() {
    const uint32_t source = TakeMule();
    const uint32_t funder = TakeMule();
    const int k = static_cast<int>(rng_.Int(8, 20));
    const int64_t day = StartDay(3);
    const int64_t total = Cents(k * rng_.LogNormal(3'000, 0.3));
    const int64_t t0 = DayStart(day) + rng_.Int(0, 6 * kUsPerHour);
    Add(funder, source, total, t0, SimChannel::kWire);
    const int64_t each = total * 97 / 100 / k;
    for (int i = 0; i < k; ++i) {
      Add(source, TakeMule(), each, t0 + rng_.Int(kUsPerHour, 2 * kUsPerDay), SimChannel::kOnline);
    }
  }

  void Cycle() {
    const int length = static_cast<int>(rng_.Int(2, 4));
    std::vector<uint32_t> ring;
    for (int i = 0; i < length; ++i) ring.push_back(TakeMule());
    const int rounds = static_cast<int>(rng_.Int(1, 2));
    double amount = rng_.LogNormal(15'000, 0.5);
    int64_t ts = DayStart(StartDay(4)) + rng_.Int(0, 12 * kUsPerHour);
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < length; ++i) {
        Add(ring[static_cast<size_t>(i)], ring[static_cast<size_t>((i + 1) % length)],
            Cents(amount), ts, SimChannel::kWire);
        amount *= 1 - (0.005 + 0.025 * rng_.Uniform());
        ts += rng_.Int(1, 12) * kUsPerHour;
      }
    }
  }

  void PassThrough() {
    const uint32_t origin = TakeMule();
    const uint32_t mule = TakeMule();
    const int rounds = static_cast<int>(rng_.Int(1, 3));
    const int64_t day = StartDay(rounds + 1);
    for (int r = 0; r < rounds; ++r) {
      const int64_t in = Cents(rng_.LogNormal(30'000, 0.6));
      const int64_t t0 = DayStart(day + r) + rng_.Int(0, 10 * kUsPerHour);
      Add(origin, mule, in, t0, SimChannel::kWire);
      const int64_t out =
          static_cast<int64_t>(static_cast<double>(in) * (0.9 + 0.09 * rng_.Uniform()));
      const int legs = static_cast<int>(rng_.Int(1, 2));
      for (int l = 0; l < legs; ++l) {
        uint32_t dest;
        if (rng_.Bernoulli(0.5)) {
          dest = p_.AddAccount(AccountKind::kIndividual, static_cast<uint8_t>(rng_.Int(1, 6)));
          pattern().accounts.push_back(dest);
        } else {
          dest = TakeMule();
        }
        Add(mule, dest, out / legs, t0 + rng_.Int(kUsPerHour, 12 * kUsPerHour), SimChannel::kWire);
      }
    }
  }

  void Dormant() {
    uint32_t sleeper = TakeMule();
    p_.accounts[sleeper].dormant = true;
    const int64_t day = rng_.Int(2 + o_.dormant_min_days, o_.days - 3);
    const int ins = static_cast<int>(rng_.Int(2, 4));
    int64_t total = 0;
    for (int i = 0; i < ins; ++i) {
      const int64_t cents = Cents(rng_.LogNormal(12'000, 0.5));
      total += cents;
      Add(TakeMule(), sleeper, cents, DayStart(day) + rng_.Int(0, 20 * kUsPerHour),
          SimChannel::kWire);
    }
    const int outs = static_cast<int>(rng_.Int(1, 3));
    for (int i = 0; i < outs; ++i) {
      Add(sleeper, TakeMule(), total * 95 / 100 / outs,
          DayStart(day + 1) + rng_.Int(0, kUsPerDay - 1), SimChannel::kWire);
    }
  }

  void Corridor() {
    const uint32_t source = TakeMule();
    const int beneficiaries = static_cast<int>(rng_.Int(1, 3));
    std::vector<uint32_t> to;
    const size_t first_high_risk = p_.countries.size() - o_.high_risk_countries.size();
    for (int i = 0; i < beneficiaries; ++i) {
      const uint8_t country =
          static_cast<uint8_t>(rng_.Int(first_high_risk, p_.countries.size() - 1));
      to.push_back(p_.AddAccount(AccountKind::kIndividual, country));
      pattern().accounts.push_back(to.back());
    }
    const int64_t span = rng_.Int(3, 7);
    const int64_t day = StartDay(span);
    const int wires = static_cast<int>(rng_.Int(3, 8));
    for (int i = 0; i < wires; ++i) {
      Add(source, to[static_cast<size_t>(rng_.Int(0, beneficiaries - 1))],
          Cents(rng_.LogNormal(8'000, 0.6)), DayStart(day) + rng_.Int(0, span * kUsPerDay - 1),
          SimChannel::kWire);
    }
  }

  const SimOptions& o_;
  Population& p_;
  SimRng& rng_;
  std::vector<SimPattern>* patterns_;
  std::vector<SimTransaction>* txns_;
  int32_t current_ = -1;
  uint32_t free_mules_ = 0;  // domestic individuals no pattern has taken
};

}  // namespace

void PlanPatterns(const SimOptions& options, Population& population, SimRng& rng,
                  std::vector<SimPattern>* patterns, std::vector<SimTransaction>* txns,
                  std::vector<std::string>* warnings) {
  Planner(options, population, rng, patterns, txns).Run(warnings);
}

}  // namespace verdict
