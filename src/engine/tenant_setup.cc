// The engine's per-tenant policies and models: activation of a tenant's own policy, the
// factory of a tenant's own model lifecycle, and restoring both at start. Here rather than in
// engine.cc, beside each other: everything that namespaces the registry by tenant.
#include <spdlog/spdlog.h>

#include <set>
#include <string>

#include "common/json_writer.h"
#include "common/sha256.h"
#include "engine/admin_ledger.h"
#include "engine/engine.h"
#include "features/feature_vector.h"
#include "lifecycle/prefixed_registry_store.h"
#include "policy/policy_bundle.h"
#include "security/api_key.h"
#include "security/key_store.h"

namespace verdict {
namespace {

// Registry keys: a tenant's policy bundle (its ingest body, recompiled at start), and the
// prefix under which a tenant's model registry and active set live.
constexpr std::string_view kTenantPolicyPrefix = "tenant-policy/";
constexpr std::string_view kTenantModelsPrefix = "tenant-models/";
// Admin events of a tenant's policy: an activation, and the note that an activation journaled
// was not made after all (its bundle could not be stored) naming the policy still in force.
constexpr std::string_view kPolicyActivate = "policy.activate";
constexpr std::string_view kPolicyActivateUndone = "policy.activate.undone";

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

// The stored bundle of `tenant` against the journal's last word on the tenant's policy: the
// bundle an attacker with disk access edited, added or put back is not in the chain, so it is
// refused (kDataLoss naming the tenant) rather than activated. An activation journaled before
// bundles were hashed (no "sha256" in its details) vouches for whatever is stored. An empty
// `stored_version` is unknown (the bundle does not compile) and not compared.
Status CheckStoredPolicy(const journal::Journal& journal, const std::string& tenant,
                         const std::string& stored_version, const std::string& stored_sha256) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<journal::AdminAction> last,
                           NewestAdminEvent(journal, tenant, [](const journal::AdminAction& a) {
                             return a.action == kPolicyActivate ||
                                    a.action == kPolicyActivateUndone;
                           }));
  const std::string what = "the stored policy of tenant " + tenant + " (version " +
                           (stored_version.empty() ? "unknown" : stored_version) + ", sha256 " +
                           stored_sha256.substr(0, 12) + ")";
  if (!last) return DataLoss(what + " was never journaled; refusing to activate it");
  const std::string journaled = AdminDetail(last->details_json, "sha256");
  if (journaled.empty() && last->action == kPolicyActivate) return Status::Ok();
  if (journaled == stored_sha256 && (stored_version.empty() || last->object == stored_version)) {
    return Status::Ok();
  }
  return DataLoss(what + " is not the policy its last journaled change (" + last->action +
                  " of version " + last->object + ", sha256 " + journaled.substr(0, 12) +
                  ") put in force; refusing to activate it");
}

// A tenant with no stored policy: refused when the journal says one of its own is in force (its
// row deleted on disk would otherwise move its decisions to the deployment's policy).
Status CheckNoPolicyMissing(const journal::Journal& journal, const std::string& tenant) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<journal::AdminAction> last,
                           NewestAdminEvent(journal, tenant, [](const journal::AdminAction& a) {
                             return a.action == kPolicyActivate ||
                                    a.action == kPolicyActivateUndone;
                           }));
  if (!last || AdminDetail(last->details_json, "sha256").empty()) return Status::Ok();
  return DataLoss("the policy of tenant " + tenant + " (version " + last->object +
                  ") that its last journaled change (" + last->action +
                  ") put in force is missing from the registry; refusing to decide its "
                  "transactions with the deployment's policy");
}

// The tenants that have API keys (the key store checks the keys themselves).
Result<std::set<std::string>> TenantsWithKeys(const journal::Journal& journal) {
  VERDICT_ASSIGN_OR_RETURN(auto rows, journal.ListRegistry(security::KeyStore::kPrefix));
  std::set<std::string> tenants;
  for (const auto& [key, value] : rows) {
    Result<security::StoredKey> stored = security::StoredKeyFromJson(value);
    if (stored.ok()) tenants.insert(stored->tenant);
  }
  return tenants;
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
  Status stored =
      journal_->PutRegistry(std::string(kTenantPolicyPrefix) + caller.tenant, bundle_json);
  if (!stored.ok()) {
    RecordActivationUndone(caller);
    return stored;
  }
  std::shared_ptr<const ActivePolicy> previous = policies_.For(caller.tenant);
  auto next = std::make_shared<const ActivePolicy>(std::move(compiled));
  policies_.Set(caller.tenant, next);
  if (on_policy_activated_) on_policy_activated_(caller, std::move(previous), std::move(next));
  spdlog::info("policy {} ({}) activated for tenant {} by {}", ref.version,
               ref.sha256.substr(0, 12), caller.tenant, caller.principal);
  return Status::Ok();
}

void Engine::RecordActivationUndone(const Caller& caller) {
  // The journal says the new bundle is in force, the registry still holds the tenant's former
  // one (or none): journaled so that a restart checks the registry against the policy that is
  // really in force. No "sha256" when the tenant is back on the deployment's policy.
  std::string details;
  JsonWriter w(details);
  w.BeginObject();
  std::string version;
  if (auto own = policies_.Own(caller.tenant)) {
    version = own->ref().version;
    w.Key("sha256").String(own->ref().sha256);
  }
  w.EndObject();
  Status recorded = journal_->RecordAdminEvent(journal::AdminEvent{
      caller.tenant, caller.principal, std::string(kPolicyActivateUndone), version, details});
  if (!recorded.ok()) {
    spdlog::error(
        "policy of tenant {}: the activation journaled was not stored, and that "
        "cannot be journaled either ({}); the next start refuses the stored policy",
        caller.tenant, recorded.ToString());
  }
}

Status Engine::RestoreTenantPolicies() {
  VERDICT_ASSIGN_OR_RETURN(auto rows, journal_->ListRegistry(kTenantPolicyPrefix));
  VERDICT_ASSIGN_OR_RETURN(std::set<std::string> without_policy, TenantsWithKeys(*journal_));
  for (const auto& [key, body] : rows) {
    const std::string tenant = key.substr(kTenantPolicyPrefix.size());
    without_policy.erase(tenant);
    // The same checks as at ingest; a bundle that no longer compiles stops the start rather
    // than let the tenant's decisions fall back silently to another policy.
    auto source = ParseBundleJson(body);
    Result<std::shared_ptr<const CompiledPolicy>> compiled =
        source.ok() ? CompileBundle(*source, kFeatureNames)
                    : Result<std::shared_ptr<const CompiledPolicy>>(source.status());
    // Checked before anything else is said of it: an edited bundle is refused as such, even
    // when the edit also broke it.
    VERDICT_RETURN_IF_ERROR(CheckStoredPolicy(
        *journal_, tenant, compiled.ok() ? (*compiled)->ref().version : std::string(),
        source.ok() ? BundleSha256(*source) : Sha256Hex(body)));
    if (!compiled.ok()) {
      return Internal("the stored policy of tenant " + tenant +
                      " does not compile: " + compiled.status().message());
    }
    spdlog::info("policy {} ({}) restored for tenant {}", (*compiled)->ref().version,
                 (*compiled)->ref().sha256.substr(0, 12), tenant);
    policies_.Set(tenant, std::make_shared<const ActivePolicy>(std::move(compiled).value()));
  }
  for (const std::string& tenant : without_policy) {
    VERDICT_RETURN_IF_ERROR(CheckNoPolicyMissing(*journal_, tenant));
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
  lo.registry.journaled_sha256s = JournaledModelRegistrations(*journal_, tenant);
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
