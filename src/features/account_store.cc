#include "features/account_store.h"

#include <utility>

namespace verdict {

void AccountTable::Grow(size_t needed) {
  size_t capacity = capacity_ == 0 ? 16 : capacity_;
  while (needed * 4 > capacity * 3) capacity *= 2;
  auto slots = std::make_unique<Slot[]>(capacity);
  const size_t mask = capacity - 1;
  for (size_t i = 0; i < capacity_; ++i) {
    Slot& old = slots_[i];
    if (old.key == 0) continue;
    size_t j = old.key & mask;
    while (slots[j].key != 0) j = (j + 1) & mask;
    slots[j].key = old.key;
    slots[j].state = std::move(old.state);
  }
  slots_ = std::move(slots);
  capacity_ = capacity;
  mask_ = mask;
}

AccountStore::AccountStore(size_t stripes) {
  const size_t n = stripes == 0 ? 1 : stripes;
  stripes_.reserve(n);
  for (size_t i = 0; i < n; ++i) stripes_.push_back(std::make_unique<Stripe>());
}

size_t AccountStore::AccountCount() const {
  size_t n = 0;
  for (const auto& stripe : stripes_) {
    MutexLock lock(stripe->mu);
    n += stripe->accounts.size();
  }
  return n;
}

}  // namespace verdict
