// Transaction: one payment as verdict sees it, after decoding and validation. Value type,
// built by a decoder (src/api, src/formats) and then read-only; safe to share once built.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/money.h"

namespace verdict {

// An account as the payment names it: its identifier and, when known, its bank (BIC).
struct AccountRef {
  std::string account;
  std::string bank;
};

struct Party {
  AccountRef ref;
  std::string country;  // ISO 3166-1 alpha-2, or empty when not given
  std::string name;
};

enum class Priority { kRealtime, kStandard, kBulk };
std::string_view PriorityName(Priority priority);

struct Transaction {
  std::string transaction_id;
  int64_t timestamp_us = 0;  // event time, UTC microseconds
  Money amount;
  Party sender;
  Party receiver;
  std::string channel;  // e.g. "wire", "card"; empty when not given
  std::string type;     // e.g. "transfer", "payment"; empty when not given
  std::string remittance;
  Priority priority = Priority::kStandard;
  std::optional<int32_t> deadline_ms;  // when absent, the priority class's default applies
  std::vector<std::pair<std::string, std::string>> metadata;
};

}  // namespace verdict
