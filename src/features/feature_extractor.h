// FeatureExtractor: computes a transaction's feature vector from its two accounts' state as of
// the transaction's timestamp (Extract), and applies the transaction to that state afterwards
// (Apply). The one code path for serving (engine), training and export (FeatureStream).
// Thread-safe: immutable options plus atomic counters; callers hold both accounts' stripes.
#pragma once

#include <atomic>
#include <bitset>
#include <cstdint>
#include <memory>

#include "common/result.h"
#include "core/transaction.h"
#include "features/account_state.h"
#include "features/feature_options.h"
#include "features/feature_vector.h"

namespace verdict {

struct FeatureCounters {
  uint64_t transactions = 0;      // applied
  uint64_t late_events = 0;       // older than an account's newest event by > late_tolerance
  uint64_t recent_overflow = 0;   // events folded early: a side had > max_recent_events in 25 h
  uint64_t unknown_currency = 0;  // amounts without an FX rate (counted at 1:1)
};

class FeatureExtractor {
 public:
  static Result<std::unique_ptr<FeatureExtractor>> Create(const FeatureOptions& options);
  // `options` must be valid (Validate()); the default options are.
  explicit FeatureExtractor(FeatureOptions options = {});

  // Features reflect only transactions applied before this one (point-in-time, I3).
  // When sender and receiver are the same account, both name the same state.
  void Extract(const Transaction& txn, const AccountState& sender, const AccountState& receiver,
               FeatureVector* out) const;
  void Apply(const Transaction& txn, AccountState& sender, AccountState& receiver) const;

  const FeatureOptions& options() const { return options_; }
  FeatureCounters counters() const;

  bool IsNearThreshold(double amount_usd) const;
  bool IsRound(const Money& amount) const;

 private:
  bool IsHighRisk(std::string_view country) const;

  FeatureOptions options_;
  std::bitset<size_t{26} * 26> high_risk_;
  mutable std::atomic<uint64_t> transactions_{0};
  mutable std::atomic<uint64_t> late_events_{0};
  mutable std::atomic<uint64_t> recent_overflow_{0};
  mutable std::atomic<uint64_t> unknown_currency_{0};
};

// The process-wide extractor with default options, used by the free functions below.
FeatureExtractor& DefaultFeatureExtractor();

// The engine's entry points: DefaultFeatureExtractor().Extract / Apply.
void ExtractFeatures(const Transaction& txn, const AccountState& sender,
                     const AccountState& receiver, FeatureVector* out);
void ApplyTransaction(const Transaction& txn, AccountState& sender, AccountState& receiver);

// The ISO 3166-1 country of a party: its `country`, else letters 5-6 of an 8/11-char BIC.
std::string_view PartyCountry(const Party& party);

}  // namespace verdict
