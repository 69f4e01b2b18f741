#include "features/account_store.h"

namespace verdict {

AccountStore::AccountStore(size_t stripes) {
  const size_t n = stripes == 0 ? 1 : stripes;
  stripes_.reserve(n);
  for (size_t i = 0; i < n; ++i) stripes_.push_back(std::make_unique<Stripe>());
}

size_t AccountStore::AccountCount() const {
  size_t n = 0;
  for (const auto& stripe : stripes_) {
    std::lock_guard lock(stripe->mu);
    n += stripe->accounts.size();
  }
  return n;
}

}  // namespace verdict
