// AccountStore: every account's state in memory, split into stripes by a hash of the account
// key. Thread-safe: WithAccounts holds the (at most two) stripes of a transaction, locked in
// stripe order so that two workers can never deadlock, for the whole read-decide-update step.
// Accounts are keyed by StableHash64 of the account string (8 bytes instead of the string; two
// accounts would share a state only on a 64-bit collision, ~3e-6 at 10 M accounts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/hash.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "features/account_state.h"

namespace verdict {

// One stripe's accounts: a flat open-addressing table (linear probing, at most 3/4 full) of
// 16-byte slots, the key and the state's handle; no nodes, no per-entry allocation besides the
// state's own block. Key 0 marks an empty slot, so key 0 is stored as 1. Accounts are never
// removed. Not thread-safe (the stripe's lock guards it).
class AccountTable {
 public:
  // Makes room for `extra` more accounts, so that the next `extra` FindOrInsert calls move no
  // state (references from the first stay valid while the second inserts).
  void Reserve(size_t extra) {
    if ((size_ + extra) * 4 > capacity_ * 3) Grow(size_ + extra);
  }
  // The state of `key`, created empty on first sight. Call Reserve(1) (or more) first.
  AccountState& FindOrInsert(uint64_t key) {
    key = key == 0 ? 1 : key;
    size_t i = key & mask_;
    while (true) {
      Slot& slot = slots_[i];
      if (slot.key == key) return slot.state;
      if (slot.key == 0) {
        slot.key = key;
        ++size_;
        return slot.state;
      }
      i = (i + 1) & mask_;
    }
  }
  size_t size() const { return size_; }
  // Bytes of the slot array (the states' blocks are apart).
  size_t SlotBytes() const { return capacity_ * sizeof(Slot); }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < capacity_; ++i) {
      if (slots_[i].key != 0) fn(slots_[i].key, static_cast<const AccountState&>(slots_[i].state));
    }
  }

 private:
  struct Slot {
    uint64_t key = 0;
    AccountState state;
  };
  void Grow(size_t needed);

  std::unique_ptr<Slot[]> slots_;
  size_t capacity_ = 0;  // a power of two, or 0
  size_t mask_ = 0;
  size_t size_ = 0;
};

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
    StripePairLock lock(a.mu, b.mu);
    if (&a == &b) {
      a.accounts.Reserve(2);  // the receiver's insert must not move the sender's state
    } else {
      a.accounts.Reserve(1);
      b.accounts.Reserve(1);
    }
    AccountState& s = a.accounts.FindOrInsert(sk);
    AccountState& r = b.accounts.FindOrInsert(rk);
    return fn(s, r);
  }

  // Runs fn(key, const AccountState&) for every account of every stripe, one stripe locked at a
  // time, in an unspecified order (checkpoints, monitoring).
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& stripe : stripes_) {
      MutexLock lock(stripe->mu);
      stripe->accounts.ForEach(fn);
    }
  }

  size_t stripe_count() const { return stripes_.size(); }
  // Number of accounts held; takes every stripe lock in turn (monitoring only).
  size_t AccountCount() const;
  static uint64_t KeyOf(std::string_view account) { return StableHash64(account); }

 private:
  struct Stripe {
    mutable Mutex mu;
    AccountTable accounts GUARDED_BY(mu);
  };
  // Holds the stripe locks of a transaction's two accounts: one lock when both are in the same
  // stripe, else both in stripe order (by address), so that two workers locking the same pair
  // never deadlock. The analysis sees both `first` and `second` held for the scope (the
  // GUARDED_BY above is checked at each use), but it cannot follow the branches that decide how
  // many locks and in which order, nor express an order among the elements of one vector of
  // stripes (ACQUIRED_BEFORE names fixed members): hence the two unchecked functions below.
  class SCOPED_CAPABILITY StripePairLock {
   public:
    // Unchecked: takes one or two locks depending on whether first and second alias (see above).
    StripePairLock(Mutex& first, Mutex& second) ACQUIRE(first, second) NO_THREAD_SAFETY_ANALYSIS
        : first_(first),
          second_(second) {
      if (&first_ == &second_) {
        first_.Lock();
      } else if (&first_ < &second_) {
        first_.Lock();
        second_.Lock();
      } else {
        second_.Lock();
        first_.Lock();
      }
    }
    // Unchecked: releases the one or two locks the constructor took.
    ~StripePairLock() RELEASE() NO_THREAD_SAFETY_ANALYSIS {
      first_.Unlock();
      if (&second_ != &first_) second_.Unlock();
    }
    StripePairLock(const StripePairLock&) = delete;
    StripePairLock& operator=(const StripePairLock&) = delete;

   private:
    Mutex& first_;
    Mutex& second_;
  };
  // The high bits choose the stripe; the table's slots use the low bits (StableHash64 mixes
  // all of them).
  Stripe& StripeFor(uint64_t key) { return *stripes_[(key >> 32) % stripes_.size()]; }

  std::vector<std::unique_ptr<Stripe>> stripes_;
};

}  // namespace verdict
