#include "sim/simulator.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/currency.h"
#include "formats/verdict_csv.h"
#include "sim/normal_activity.h"

namespace verdict {

namespace {

constexpr int64_t kUsPerDay = int64_t{86'400} * 1'000'000;

bool Earlier(const SimTransaction& a, const SimTransaction& b) {
  return a.timestamp_us != b.timestamp_us ? a.timestamp_us < b.timestamp_us
                                          : a.sequence < b.sequence;
}

std::string_view ChannelName(SimChannel c) {
  switch (c) {
    case SimChannel::kWire:
      return "wire";
    case SimChannel::kAch:
      return "ach";
    case SimChannel::kCard:
      return "card";
    case SimChannel::kCash:
      return "cash";
    case SimChannel::kOnline:
      return "online";
    case SimChannel::kMobile:
      return "mobile";
  }
  return "";
}

std::string_view TypeName(SimType t) {
  switch (t) {
    case SimType::kTransfer:
      return "transfer";
    case SimType::kPayment:
      return "payment";
    case SimType::kSalary:
      return "salary";
  }
  return "";
}

}  // namespace

Result<std::unique_ptr<Simulator>> Simulator::Create(const SimOptions& options) {
  VERDICT_RETURN_IF_ERROR(options.Validate());
  std::unique_ptr<Simulator> sim(new Simulator(options));
  SimRng rng(options.seed);
  sim->population_ = BuildPopulation(options, rng);
  PlanPatterns(options, sim->population_, rng, &sim->patterns_, &sim->pattern_txns_,
               &sim->warnings_);
  for (size_t i = 0; i < sim->pattern_txns_.size(); ++i) sim->pattern_txns_[i].sequence = i;
  std::sort(sim->pattern_txns_.begin(), sim->pattern_txns_.end(), Earlier);
  for (const SimCountry& c : sim->population_.countries) {
    if (FindCurrency(c.currency) == nullptr) return Internal("no currency " + c.currency);
  }
  return sim;
}

void Simulator::ToLabelled(const SimTransaction& t, uint64_t number,
                           LabelledTransaction* out) const {
  const Population& p = population_;
  char id[24];
  std::snprintf(id, sizeof(id), "T%010llu", static_cast<unsigned long long>(number));
  Transaction& x = out->txn;
  x.transaction_id = id;
  x.timestamp_us = t.timestamp_us;
  const SimCountry& home = p.countries[p.accounts[t.sender].country];
  x.amount = Money(t.amount_minor, *FindCurrency(t.usd_exact ? "USD" : home.currency));
  x.sender = Party{{p.AccountId(t.sender), p.BankOf(t.sender)},
                   p.countries[p.accounts[t.sender].country].code,
                   {}};
  x.receiver = Party{{p.AccountId(t.receiver), p.BankOf(t.receiver)},
                     p.countries[p.accounts[t.receiver].country].code,
                     {}};
  x.channel = std::string(ChannelName(t.channel));
  x.type = std::string(TypeName(t.type));
  out->label = t.pattern >= 0;
  if (t.pattern >= 0) {
    const SimPattern& pattern = patterns_[static_cast<size_t>(t.pattern)];
    out->typology = pattern.typology;
    out->pattern_id = pattern.id;
  } else {
    out->typology.clear();
    out->pattern_id.clear();
  }
  out->row = number;
  out->line = number + 2;
}

Status Simulator::Run(const Sink& sink, const Progress& progress) {
  summary_ = SimSummary{};
  summary_.accounts = population_.accounts.size();
  summary_.patterns = patterns_.size();
  summary_.warnings = warnings_;
  std::vector<SimTransaction> day_txns;
  size_t next_pattern = 0;
  uint64_t sequence = pattern_txns_.size();
  uint64_t number = 0;
  LabelledTransaction out;
  for (uint32_t day = 0; day < options_.days; ++day) {
    day_txns.clear();
    SimRng rng(options_.seed ^ (0x5851f42d4c957f2dULL * (day + 1)));
    GenerateNormalDay(options_, population_, day, rng, &day_txns);
    for (SimTransaction& t : day_txns) t.sequence = sequence++;
    const int64_t day_end = options_.start_us + (day + 1) * kUsPerDay;
    while (next_pattern < pattern_txns_.size() &&
           pattern_txns_[next_pattern].timestamp_us < day_end) {
      day_txns.push_back(pattern_txns_[next_pattern++]);
    }
    std::sort(day_txns.begin(), day_txns.end(), Earlier);
    for (const SimTransaction& t : day_txns) {
      ToLabelled(t, number++, &out);
      ++summary_.transactions;
      if (*out.label) {
        ++summary_.laundering;
        ++summary_.laundering_by_typology[out.typology];
      }
      VERDICT_RETURN_IF_ERROR(sink(out));
    }
    if (progress) progress(day + 1, options_.days);
  }
  return Status::Ok();
}

Result<SimSummary> WriteSimCsv(const SimOptions& options, const std::string& path,
                               const Simulator::Progress& progress) {
  VERDICT_ASSIGN_OR_RETURN(auto sim, Simulator::Create(options));
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return InvalidArgument(path + ": " + std::strerror(errno), "out");
  }
  std::string buffer(kVerdictCsvHeader);
  buffer.push_back('\n');
  bool write_ok = true;
  auto flush = [&] {
    if (std::fwrite(buffer.data(), 1, buffer.size(), file) != buffer.size()) write_ok = false;
    buffer.clear();
  };
  Status s = sim->Run(
      [&](const LabelledTransaction& t) {
        AppendVerdictCsvRow(t, &buffer);
        buffer.push_back('\n');
        if (buffer.size() > (1 << 20)) flush();
        return write_ok ? Status::Ok() : Internal(path + ": write failed");
      },
      progress);
  flush();
  if (std::fclose(file) != 0) write_ok = false;
  if (!s.ok()) return s;
  if (!write_ok) return Internal(path + ": write failed");
  return sim->summary();
}

}  // namespace verdict
