#include "features/fx_table.h"

#include <cmath>

namespace verdict {

namespace {

struct DefaultRate {
  std::string_view code;
  int64_t usd_micros;
};

// Round reference rates (USD per unit), chosen once and never updated: features need a stable
// scale, not today's market. Override per deployment with FeatureOptions::fx.
constexpr DefaultRate kDefaultRates[] = {
    {"USD", 1'000'000},      {"EUR", 1'080'000}, {"GBP", 1'270'000}, {"CHF", 1'130'000},
    {"JPY", 6'700},          {"CNY", 138'000},   {"INR", 12'000},    {"RUB", 11'000},
    {"CAD", 730'000},        {"AUD", 650'000},   {"MXN", 58'000},    {"BRL", 200'000},
    {"SAR", 267'000},        {"ILS", 270'000},   {"SEK", 95'000},    {"NOK", 93'000},
    {"DKK", 145'000},        {"PLN", 250'000},   {"HKD", 128'000},   {"SGD", 740'000},
    {"AED", 272'000},        {"TRY", 31'000},    {"ZAR", 54'000},    {"KRW", 750},
    {"XBT", 60'000'000'000},  // bitcoin, as IBM AMLworld data uses it; not ISO 4217
};

}  // namespace

FxTable FxTable::Default() {
  FxTable table;
  for (const DefaultRate& r : kDefaultRates) table.rates_[Key(r.code)] = r.usd_micros;
  return table;
}

uint32_t FxTable::Key(std::string_view code) {
  uint32_t key = 0;
  for (size_t i = 0; i < code.size() && i < 4; ++i) {
    key = (key << 8) | static_cast<unsigned char>(code[i]);
  }
  return key;
}

Status FxTable::SetRate(std::string_view code, int64_t usd_micros_per_unit) {
  if (code.size() != 3) return InvalidArgument("currency code must have 3 letters", "fx");
  if (usd_micros_per_unit <= 0) return InvalidArgument("fx rate must be positive", "fx");
  rates_[Key(code)] = usd_micros_per_unit;
  return Status::Ok();
}

bool FxTable::HasRate(std::string_view code) const { return rates_.contains(Key(code)); }

double FxTable::ToUsd(const Money& amount) const {
  if (!amount.valid()) return 0;
  const auto it = rates_.find(Key(amount.currency().code));
  const double rate = it == rates_.end() ? 1.0 : static_cast<double>(it->second) * 1e-6;
  return amount.ToMajor() * rate;
}

}  // namespace verdict
