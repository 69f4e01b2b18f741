#include "sched/tenant_table.h"

#include <algorithm>

namespace verdict {

TenantTable::TenantTable(const std::vector<TenantOptions>& configured) {
  MutexLock lock(mu_);
  const TenantOptions* default_options = nullptr;
  for (const TenantOptions& t : configured) {
    if (t.name == kDefaultTenantName) default_options = &t;
  }
  if (default_options != nullptr) {
    AddLocked(default_options->name, default_options->weight, default_options->rate_per_s,
              default_options->burst);
    Count(*slots_[kDefaultTenantId]);
  } else {
    AddLocked(std::string(kDefaultTenantName), 1, 0, 0);  // counted on its first request
  }
  for (const TenantOptions& t : configured) {
    if (t.name == kDefaultTenantName || names_.contains(t.name)) continue;
    if (count_.load(std::memory_order_relaxed) == kMaxTenants) break;
    Count(*slots_[AddLocked(t.name, t.weight, t.rate_per_s, t.burst)]);
  }
}

TenantId TenantTable::AddLocked(std::string name, double weight, double rate, double burst) {
  const size_t id = count_.load(std::memory_order_relaxed);
  slots_[id] = std::make_unique<Tenant>(name, weight, rate, burst);
  names_.emplace(std::move(name), static_cast<TenantId>(id));
  count_.store(id + 1, std::memory_order_release);  // publishes the slot to lock-free readers
  return static_cast<TenantId>(id);
}

TenantId TenantTable::Intern(std::string_view name) {
  MutexLock lock(mu_);
  auto it = names_.find(name);
  if (it != names_.end()) return it->second;
  if (count_.load(std::memory_order_relaxed) == kMaxTenants) {
    return static_cast<TenantId>(kMaxTenants - 1);  // the shared overflow lane
  }
  return AddLocked(std::string(name), 1, 0, 0);
}

void TenantTable::Count(Tenant& tenant) {
  if (tenant.counted.exchange(true, std::memory_order_relaxed)) return;
  double total = total_weight_.load(std::memory_order_relaxed);
  while (!total_weight_.compare_exchange_weak(total, total + tenant.weight,
                                              std::memory_order_relaxed)) {
  }
}

double TenantTable::CapacityShare(TenantId id) {
  Tenant& tenant = Get(id);
  if (!tenant.counted.load(std::memory_order_relaxed)) Count(tenant);
  const double total = total_weight();
  return total > 0 ? std::min(1.0, tenant.weight / total) : 1.0;
}

}  // namespace verdict
