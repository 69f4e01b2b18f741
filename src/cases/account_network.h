// AccountNetwork: an account's counterparties over the last N days, built from the journal's
// account index for the analyst's network view: who sent it money and whom it paid (counts and
// totals per currency), which parties were flagged (review or block decisions of their own in
// the window), the payments among those parties, and the short cycles the money makes through
// them. Bounded: at most kMaxNetworkNodes counterparties (the busiest), a fixed number of
// records read per account, cycles of at most kMaxCycleLength parties, at most kMaxCycles of
// them. One tenant's records only (the reader is asked for the caller's tenant and every record
// of another is dropped). Stateless functions; thread-safe as the reader given is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "journal/record.h"

namespace verdict::cases {

inline constexpr int kMaxNetworkDays = 90;
inline constexpr size_t kMaxNetworkNodes = 40;          // counterparties, beside the account
inline constexpr size_t kMaxCenterRecords = 2000;       // read from the account's index
inline constexpr size_t kMaxCounterpartyRecords = 200;  // read from each counterparty's
inline constexpr size_t kMaxCycleLength = 5;
inline constexpr size_t kMaxCycles = 20;

// Totals by currency, as exact decimal text ("1250.50"): amounts are summed as decimals.
using CurrencyTotals = std::map<std::string, std::string, std::less<>>;

struct NetworkFlow {
  uint64_t count = 0;
  CurrencyTotals totals;
};

struct NetworkNode {
  std::string account;
  bool center = false;     // the account asked about
  NetworkFlow in;          // payments into this party, among the graph's edges
  NetworkFlow out;         // payments out of it, among the graph's edges
  uint64_t flagged = 0;    // its review and block decisions in the window
  uint64_t decisions = 0;  // its decisions read in the window
};

struct NetworkEdge {
  std::string from;  // the sender
  std::string to;    // the receiver
  NetworkFlow flow;
  uint64_t flagged = 0;  // of these payments, decided review or block
  bool in_cycle = false;
};

struct AccountNetwork {
  std::string account;
  int days = 0;
  int64_t since_us = 0;
  std::vector<NetworkNode> nodes;  // the account first, then by payments with it, most first
  std::vector<NetworkEdge> edges;  // sorted by (from, to)
  std::vector<std::vector<std::string>> cycles;  // each in payment order, from its first node
  bool truncated = false;  // counterparties, records or cycles beyond the bounds were left out
};

// The account's records of the tenant, newest first, with seq < before_seq, at most `limit`
// (Journal::ListByAccount).
using AccountRecordReader = std::function<Result<std::vector<journal::JournalRecord>>(
    std::string_view account, size_t limit, uint64_t before_seq)>;

// Builds the network of `account` for records decided at or after now_us - days. `days` 1 to
// kMaxNetworkDays, else kInvalidArgument naming "days".
Result<AccountNetwork> BuildAccountNetwork(std::string_view tenant, std::string_view account,
                                           int days, int64_t now_us,
                                           const AccountRecordReader& read);

// Adds two non-negative decimal texts exactly ("12.5" + "0.75" = "13.25"); kInvalidArgument for
// anything else.
Result<std::string> AddDecimal(std::string_view a, std::string_view b);

}  // namespace verdict::cases
