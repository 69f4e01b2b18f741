// AccountStore: every account's state in memory, split into stripes by a hash of the account
// key. Thread-safe: WithAccounts holds the (at most two) stripes of a transaction, locked in
// stripe order so that two workers can never deadlock, for the whole read-decide-update step.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
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
  auto WithAccounts(const std::string& sender, const std::string& receiver, Fn&& fn) {
    Stripe& a = StripeFor(sender);
    Stripe& b = StripeFor(receiver);
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
    AccountState& s = a.accounts[sender];
    AccountState& r = b.accounts[receiver];
    return fn(s, r);
  }

  size_t stripe_count() const { return stripes_.size(); }
  // Number of accounts held; takes every stripe lock in turn (monitoring only).
  size_t AccountCount() const;

 private:
  struct Stripe {
    mutable std::mutex mu;
    std::unordered_map<std::string, AccountState> accounts;
  };
  Stripe& StripeFor(const std::string& key) {
    return *stripes_[StableHash64(key) % stripes_.size()];
  }

  std::vector<std::unique_ptr<Stripe>> stripes_;
};

}  // namespace verdict
