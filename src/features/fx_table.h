// FxTable: a small static table of USD-equivalent rates used to put amounts of different
// currencies on one scale for features (never for money arithmetic). Immutable after set-up;
// thread-safe to read.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "common/status.h"
#include "core/money.h"

namespace verdict {

class FxTable {
 public:
  // The documented default rates (docs/features.md), fixed so that replays are reproducible.
  static FxTable Default();

  // Sets the rate of one major unit of `code` in USD micro-units (1 EUR = 1'080'000).
  Status SetRate(std::string_view code, int64_t usd_micros_per_unit);
  // USD equivalent of `amount` for features; currencies without a rate count at 1:1 (and are
  // counted by the caller's metrics, not here).
  double ToUsd(const Money& amount) const;
  bool HasRate(std::string_view code) const;

 private:
  static uint32_t Key(std::string_view code);
  std::unordered_map<uint32_t, int64_t> rates_;
};

}  // namespace verdict
