// AccountStore: every account's state in memory, split into stripes by a hash of the account
// key. Thread-safe: WithAccounts holds the (at most two) stripes of a transaction, locked in
// stripe order so that two workers can never deadlock, for the whole read-decide-update step.
// Accounts are keyed by StableHash64 of the account string (8 bytes instead of the string; two
// accounts would share a state only on a 64-bit collision, ~3e-6 at 10 M accounts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/hash.h"
#include "features/account_state.h"

namespace verdict {

class AccountStore {
 public:
  explicit AccountStore(size_t stripes);

  // Runs fn(sender_state, receiver_state) with both accounts' stripes held; creates states on
  // first sight. When sender == receiver both references name the same state.
  template <typename Fn>
  auto WithAccounts(std::string_view sender, std::string_view receiver, Fn&& fn) {
    const uint64_t sk = StableHash64(sender);
    const uint64_t rk = StableHash64(receiver);
    Stripe& a = StripeFor(sk);
    Stripe& b = StripeFor(rk);
    std::unique_lock<std::mutex> first, second;
    if (&a == &b) {
      first = std::unique_lock(a.mu);
    } else if (&a < &b) {
      first = std::unique_lock(a.mu);
      second = std::unique_lock(b.mu);
    } else {
      first = std::unique_lock(b.mu);
      second = std::unique_lock(a.mu);
    }
    AccountState& s = a.accounts[sk];
    AccountState& r = b.accounts[rk];
    return fn(s, r);
  }

  // Runs fn(key, const AccountState&) for every account of every stripe, one stripe locked at a
  // time, in an unspecified order (checkpoints, monitoring).
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& stripe : stripes_) {
      std::lock_guard lock(stripe->mu);
      for (const auto& [key, state] : stripe->accounts) fn(key, state);
    }
  }

  size_t stripe_count() const { return stripes_.size(); }
  // Number of accounts held; takes every stripe lock in turn (monitoring only).
  size_t AccountCount() const;
  static uint64_t KeyOf(std::string_view account) { return StableHash64(account); }

 private:
  struct Stripe {
    mutable std::mutex mu;
    std::unordered_map<uint64_t, AccountState> accounts;
  };
  // The high bits choose the stripe; the map's buckets use the key itself.
  Stripe& StripeFor(uint64_t key) { return *stripes_[(key >> 32) % stripes_.size()]; }

  std::vector<std::unique_ptr<Stripe>> stripes_;
};

}  // namespace verdict
