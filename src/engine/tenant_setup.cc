// The engine's per-tenant policies and models: activation of a tenant's own policy, the
// factory of a tenant's own model lifecycle, and restoring both at start. Here rather than in
// engine.cc, beside each other: everything that namespaces the registry by tenant.
#include <spdlog/spdlog.h>

#include <set>
#include <string>

#include "common/json_writer.h"
#include "engine/engine.h"
#include "features/feature_vector.h"
#include "lifecycle/prefixed_registry_store.h"
#include "policy/policy_bundle.h"

namespace verdict {
namespace {

// Registry keys: a tenant's policy bundle (its ingest body, recompiled at start), and the
// prefix under which a tenant's model registry and active set live.
constexpr std::string_view kTenantPolicyPrefix = "tenant-policy/";
constexpr std::string_view kTenantModelsPrefix = "tenant-models/";

// Tenant names come from API keys ([A-Za-z0-9._-]); "." and ".." would name a directory
// outside the tenant's own under <data_dir>/tenant-models/.
Status CheckTenantForPath(std::string_view tenant) {
  if (tenant.empty() || tenant == "." || tenant == ".." || tenant.find('/') != tenant.npos) {
    return InvalidArgument(
        "tenant '" + std::string(tenant) + "' cannot have models of its own (reserved name)",
        "tenant");
  }
  return Status::Ok();
}

}  // namespace

Status Engine::ActivatePolicy(const Caller& caller, std::string_view bundle_json,
                              std::shared_ptr<const CompiledPolicy> compiled) {
  MutexLock lock(policy_write_mu_);
  const PolicyRef& ref = compiled->ref();
  std::string details;
  JsonWriter w(details);
  w.BeginObject().Key("sha256").String(ref.sha256);
  if (auto previous = policies_.For(caller.tenant)) {
    w.Key("previous").BeginObject().Key("version").String(previous->ref().version);
    w.Key("sha256").String(previous->ref().sha256).EndObject();
  }
  w.EndObject();
  // On record first, then stored, then in force: a change that cannot be recorded is not made.
  VERDICT_RETURN_IF_ERROR(journal_->RecordAdminEvent(journal::AdminEvent{
      caller.tenant, caller.principal, "policy.activate", ref.version, details}));
  VERDICT_RETURN_IF_ERROR(
      journal_->PutRegistry(std::string(kTenantPolicyPrefix) + caller.tenant, bundle_json));
  policies_.Set(caller.tenant, std::make_shared<const ActivePolicy>(std::move(compiled)));
  spdlog::info("policy {} ({}) activated for tenant {} by {}", ref.version,
               ref.sha256.substr(0, 12), caller.tenant, caller.principal);
  return Status::Ok();
}

Status Engine::RestoreTenantPolicies() {
  VERDICT_ASSIGN_OR_RETURN(auto rows, journal_->ListRegistry(kTenantPolicyPrefix));
  for (const auto& [key, body] : rows) {
    const std::string tenant = key.substr(kTenantPolicyPrefix.size());
    // The same checks as at ingest; a bundle that no longer compiles stops the start rather
    // than let the tenant's decisions fall back silently to another policy.
    auto source = ParseBundleJson(body);
    Result<std::shared_ptr<const CompiledPolicy>> compiled =
        source.ok() ? CompileBundle(*source, kFeatureNames)
                    : Result<std::shared_ptr<const CompiledPolicy>>(source.status());
    if (!compiled.ok()) {
      return Internal("the stored policy of tenant " + tenant +
                      " does not compile: " + compiled.status().message());
    }
    spdlog::info("policy {} ({}) restored for tenant {}", (*compiled)->ref().version,
                 (*compiled)->ref().sha256.substr(0, 12), tenant);
    policies_.Set(tenant, std::make_shared<const ActivePolicy>(std::move(compiled).value()));
  }
  return Status::Ok();
}

Result<lifecycle::TenantModels::Made> Engine::MakeTenantModels(const std::string& tenant) {
  VERDICT_RETURN_IF_ERROR(CheckTenantForPath(tenant));
  lifecycle::TenantModels::Made made;
  made.store = std::make_unique<lifecycle::PrefixedRegistryStore>(
      *registry_store_, std::string(kTenantModelsPrefix) + tenant + "/");
  lifecycle::LifecycleOptions lo = lifecycle_options_;
  lo.registry.models_dir = options_.data_dir + "/tenant-models/" + tenant;
  lo.registry.fallback = &models_->registry();
  lo.tenant = tenant;
  lifecycle::ModelLifecycle* deployment = models_.get();
  lo.inherited_primary = [deployment] { return deployment->current()->primary; };
  journal::Journal* journal = journal_.get();
  auto admin_log = [journal](const lifecycle::AdminChange& change) {
    return journal->RecordAdminEvent(journal::AdminEvent{change.actor.tenant,
                                                         change.actor.principal, change.action,
                                                         change.object, change.details_json});
  };
  // No metrics: the lifecycle gauges describe the deployment's rollout; a tenant's rollout is
  // on its GET /v1/models.
  VERDICT_ASSIGN_OR_RETURN(
      made.lifecycle,
      lifecycle::ModelLifecycle::Create(std::move(lo), *made.store, admin_log, clock_, nullptr));
  return made;
}

Status Engine::RestoreTenantModels() {
  VERDICT_ASSIGN_OR_RETURN(auto rows, journal_->ListRegistry(kTenantModelsPrefix));
  std::set<std::string> tenants;
  for (const auto& [key, value] : rows) {
    const std::string_view rest = std::string_view(key).substr(kTenantModelsPrefix.size());
    tenants.emplace(rest.substr(0, rest.find('/')));
  }
  for (const std::string& tenant : tenants) {
    VERDICT_ASSIGN_OR_RETURN(lifecycle::ModelLifecycle * own, tenant_models_->OwnOrCreate(tenant));
    const auto set = own->current();
    spdlog::info("models of tenant {} restored: primary {}", tenant,
                 set->primary ? set->primary->ref().name + "/" + set->primary->ref().version
                              : "(the deployment's)");
  }
  return Status::Ok();
}

}  // namespace verdict
