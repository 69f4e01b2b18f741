#include "engine/drift_watch_setup.h"

#include <filesystem>
#include <optional>
#include <string>

#include "engine/engine.h"
#include "features/feature_vector.h"

namespace verdict {

Result<std::unique_ptr<monitor::DriftWatch>> MakeDriftWatch(const EngineOptions& options,
                                                            const lifecycle::TenantModels& models,
                                                            MetricsRegistry& metrics,
                                                            const Clock& clock,
                                                            monitor::DriftRecorder* recorder) {
  if (!options.drift.enabled) return std::unique_ptr<monitor::DriftWatch>();
  const ModelOptions configured = options.model;
  const lifecycle::TenantModels* tenants = &models;
  auto loader =
      [configured, tenants](
          std::string_view scope, std::string_view name,
          std::string_view version) -> Result<std::optional<monitor::ReferenceDistribution>> {
    std::string path;
    std::string field = "model.path";
    // Scope "" is the deployment's models; otherwise the tenant's own registry, which reads
    // through to the deployment's.
    const lifecycle::ModelLifecycle* registry_owner =
        scope.empty() ? &tenants->deployment() : tenants->Own(scope);
    if (registry_owner == nullptr) return std::optional<monitor::ReferenceDistribution>();
    VERDICT_ASSIGN_OR_RETURN(auto entry, registry_owner->registry().Find(name, version));
    if (!entry.has_value()) return std::optional<monitor::ReferenceDistribution>();
    // The configured model's reference is the file beside its path (it was registered from the
    // path without one), in the deployment's scope and in a tenant's that made that very model
    // its own primary: the entry found is the deployment's (a tenant's own model of the same
    // name and version, registered before the configuration named it, is not).
    bool configured_model = false;
    if (!configured.path.empty() && name == configured.name && version == configured.version) {
      VERDICT_ASSIGN_OR_RETURN(auto deployments,
                               tenants->deployment().registry().Find(name, version));
      configured_model = deployments.has_value() && deployments->dir == entry->dir;
    }
    if (configured_model) {
      path = (std::filesystem::path(configured.path).parent_path() / "reference.json").string();
    } else {
      if (!entry->has_reference) return std::optional<monitor::ReferenceDistribution>();
      path = entry->dir + "/reference.json";
      field = "reference";
    }
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::optional<monitor::ReferenceDistribution>();
    auto reference = monitor::ReadReferenceFile(path);
    if (!reference.ok()) {
      return Status(reference.status().code(), path + ": " + reference.status().message(), field);
    }
    return std::optional<monitor::ReferenceDistribution>(std::move(reference).value());
  };
  auto watch = std::make_unique<monitor::DriftWatch>(options.drift, kFeatureNames,
                                                     std::move(loader), metrics, clock, recorder);
  if (!options.model.path.empty()) {
    VERDICT_RETURN_IF_ERROR(watch->Watch(options.model.name, options.model.version));
  }
  return watch;
}

// Here rather than in engine.cc, beside the rest of the engine's drift wiring.
monitor::DriftMonitor* Engine::drift(std::string_view tenant) {
  if (drift_ == nullptr) return nullptr;
  const lifecycle::TenantModels::Resolved resolved = tenant_models_->Current(tenant);
  const std::shared_ptr<const lifecycle::ModelSet>& set = resolved.set;
  if (set == nullptr || set->primary == nullptr) return nullptr;
  return drift_->For(resolved.own ? tenant : std::string_view(), set->primary->ref().name,
                     set->primary->ref().version);
}

}  // namespace verdict
