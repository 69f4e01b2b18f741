// TenantPolicies: the policy in force for each tenant: the deployment's (from the
// configuration) unless the tenant's admin has ingested one of its own. A decision finds its
// tenant's policy with one relaxed load while no tenant has its own, and otherwise lock-free
// without allocating (TenantMap); it holds the snapshot it found (I4). Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>
#include <utility>

#include "common/tenant_map.h"
#include "engine/active_policy.h"

namespace verdict {

class TenantPolicies {
 public:
  using PolicyPtr = std::shared_ptr<const ActivePolicy>;

  // Once, at start, before any decision.
  void SetDeployment(PolicyPtr policy) { deployment_.store(std::move(policy)); }
  PolicyPtr deployment() const { return deployment_.load(); }

  PolicyPtr For(std::string_view tenant) const {
    if (std::optional<PolicyPtr> own = by_tenant_.Find(tenant)) return std::move(*own);
    return deployment_.load();
  }
  // The tenant's own policy; null when it uses the deployment's.
  PolicyPtr Own(std::string_view tenant) const { return by_tenant_.Find(tenant).value_or(nullptr); }
  // Replaces the tenant's own policy; decisions already under way keep the one they took.
  void Set(std::string_view tenant, PolicyPtr policy) { by_tenant_.Set(tenant, std::move(policy)); }
  size_t tenants_with_own() const { return by_tenant_.size(); }

 private:
  std::atomic<PolicyPtr> deployment_;
  TenantMap<PolicyPtr> by_tenant_;
};

}  // namespace verdict
