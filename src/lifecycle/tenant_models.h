// TenantModels: the model lifecycles of one deployment: the deployment's own (the configured
// model, used by every tenant without a model of its own) and one per tenant whose admin has
// registered or activated a model, made on first use and restored at start. A decision finds
// its tenant's set lock-free and without allocating (TenantMap). Owns the tenants' lifecycles
// (never removed while it lives); the deployment's lifecycle must outlive it. Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"
#include "common/tenant_map.h"
#include "common/thread_annotations.h"
#include "lifecycle/model_lifecycle.h"
#include "lifecycle/registry_store.h"

namespace verdict::lifecycle {

class TenantModels {
 public:
  // A tenant's lifecycle, not yet started, and the store view it keeps its registry and active
  // set in (namespaced by the tenant); it reads through to the deployment's registry and
  // inherits its primary.
  struct Made {
    std::unique_ptr<RegistryStore> store;
    std::unique_ptr<ModelLifecycle> lifecycle;  // destroyed before its store
  };
  using Factory = std::function<Result<Made>(const std::string& tenant)>;

  TenantModels(ModelLifecycle& deployment, Factory factory)
      : deployment_(deployment), factory_(std::move(factory)) {}

  // The models that decide a transaction of `tenant`, and the lifecycle they come from (the
  // deployment's unless the tenant has a primary of its own). Take once per decision (I4).
  struct Resolved {
    std::shared_ptr<const ModelSet> set;
    const ModelLifecycle* owner = nullptr;
    bool own = false;  // the tenant's own lifecycle
  };
  Resolved Current(std::string_view tenant) const;

  // The tenant's own lifecycle, or null when it has none (it uses the deployment's).
  ModelLifecycle* Own(std::string_view tenant) const;
  // What a tenant's admin changes: its own lifecycle, made and started on first use.
  Result<ModelLifecycle*> OwnOrCreate(std::string_view tenant);
  // What a tenant's analysts and admins see: its own lifecycle, else the deployment's.
  const ModelLifecycle& View(std::string_view tenant) const;

  ModelLifecycle& deployment() { return deployment_; }
  const ModelLifecycle& deployment() const { return deployment_; }
  // Tenants with a lifecycle of their own, in name order.
  std::vector<std::string> tenants() const;

 private:
  ModelLifecycle& deployment_;
  const Factory factory_;
  TenantMap<ModelLifecycle*> by_tenant_;
  // Taken inside by_tenant_'s write lock (OwnOrCreate's make), after the new lifecycle has
  // started; the analysis cannot name by_tenant_'s private lock in ACQUIRED_AFTER.
  Mutex owned_mu_;
  std::deque<Made> owned_ GUARDED_BY(owned_mu_);
};

}  // namespace verdict::lifecycle
