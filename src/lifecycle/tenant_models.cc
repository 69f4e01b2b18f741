#include "lifecycle/tenant_models.h"

namespace verdict::lifecycle {

TenantModels::Resolved TenantModels::Current(std::string_view tenant) const {
  if (std::optional<ModelLifecycle*> own = by_tenant_.Find(tenant)) {
    std::shared_ptr<const ModelSet> set = (*own)->current();
    // A tenant that has only registered models (no primary yet) still decides with the
    // deployment's.
    if (set->primary != nullptr) return {std::move(set), *own, true};
  }
  return {deployment_.current(), &deployment_, false};
}

ModelLifecycle* TenantModels::Own(std::string_view tenant) const {
  return by_tenant_.Find(tenant).value_or(nullptr);
}

const ModelLifecycle& TenantModels::View(std::string_view tenant) const {
  ModelLifecycle* own = Own(tenant);
  return own != nullptr ? *own : deployment_;
}

Result<ModelLifecycle*> TenantModels::OwnOrCreate(std::string_view tenant) {
  Status failed;
  std::optional<ModelLifecycle*> found =
      by_tenant_.FindOrInsert(tenant, [&]() -> std::optional<ModelLifecycle*> {
        auto made = factory_(std::string(tenant));
        if (!made.ok()) {
          failed = made.status();
          return std::nullopt;
        }
        // Restores what the tenant had before a restart, if anything.
        Status started = made->lifecycle->Start(std::nullopt);
        if (!started.ok()) {
          failed = started;
          return std::nullopt;
        }
        MutexLock lock(owned_mu_);
        owned_.push_back(std::move(made).value());
        return owned_.back().lifecycle.get();
      });
  if (!found) {
    return Status(failed.code(),
                  "models of tenant " + std::string(tenant) + ": " + failed.message(),
                  failed.field());
  }
  return *found;
}

std::vector<std::string> TenantModels::tenants() const {
  std::vector<std::string> out;
  for (const auto& [tenant, lifecycle] : *by_tenant_.snapshot()) out.push_back(tenant);
  return out;
}

}  // namespace verdict::lifecycle
