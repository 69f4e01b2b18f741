#include "api/connection_limits.h"

namespace verdict {

ConnectionLimits::Claim& ConnectionLimits::Claim::operator=(Claim&& other) noexcept {
  if (this != &other) {
    Release();
    owner_ = other.owner_;
    kind_ = other.kind_;
    key_ = std::move(other.key_);
    other.owner_ = nullptr;
    other.key_.clear();
  }
  return *this;
}

void ConnectionLimits::Claim::Release() {
  if (owner_ == nullptr) return;
  owner_->Give(kind_, key_);
  owner_ = nullptr;
  key_.clear();
}

ConnectionLimits::ConnectionLimits(size_t per_address, size_t per_tenant)
    : per_address_(per_address), per_tenant_(per_tenant) {}

ConnectionLimits::Claim ConnectionLimits::ClaimAddress(std::string_view address) {
  return Take(Claim::Kind::kAddress, address);
}

ConnectionLimits::Claim ConnectionLimits::ClaimTenant(std::string_view tenant) {
  return Take(Claim::Kind::kTenant, tenant);
}

ConnectionLimits::Claim ConnectionLimits::Take(Claim::Kind kind, std::string_view key) {
  const size_t limit = kind == Claim::Kind::kAddress ? per_address_ : per_tenant_;
  std::string owned(key);
  MutexLock lock(mu_);
  size_t& held = CountsOf(kind)[owned];
  if (limit != 0 && held >= limit) return Claim();  // held > 0 here: the entry was there
  ++held;
  return Claim(this, kind, std::move(owned));
}

void ConnectionLimits::Give(Claim::Kind kind, const std::string& key) {
  MutexLock lock(mu_);
  Counts& counts = CountsOf(kind);
  auto it = counts.find(key);
  if (it == counts.end()) return;
  // Erased at zero, so that the table holds only the addresses connected now.
  if (--it->second == 0) counts.erase(it);
}

size_t ConnectionLimits::HeldByAddress(std::string_view address) const {
  MutexLock lock(mu_);
  auto it = by_address_.find(std::string(address));
  return it == by_address_.end() ? 0 : it->second;
}

size_t ConnectionLimits::HeldByTenant(std::string_view tenant) const {
  MutexLock lock(mu_);
  auto it = by_tenant_.find(std::string(tenant));
  return it == by_tenant_.end() ? 0 : it->second;
}

}  // namespace verdict
