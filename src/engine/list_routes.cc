#include "engine/list_routes.h"

#include <memory>
#include <optional>
#include <utility>

#include "api/error_response.h"
#include "common/json_writer.h"
#include "common/mutex.h"
#include "common/sha256.h"
#include "engine/rescreener.h"
#include "features/feature_vector.h"
#include "journal/admin_event.h"
#include "policy/list_import.h"

namespace verdict {
namespace {

// Where Engine::ActivatePolicy stores a tenant's own bundle (tenant_setup.cc).
constexpr std::string_view kTenantPolicyKey = "tenant-policy/";

HttpResponse Refused(const Status& status, const std::vector<Diagnostic>& errors) {
  return ErrorResponse(status, [&errors](JsonWriter& w) {
    w.Key("errors");
    WriteDiagnosticsJson(errors, w);
  });
}

std::string ImportDetails(const ListImport& import, const BundleInfo& info) {
  std::string details;
  JsonWriter w(details);
  w.BeginObject().Key("format").String(ListFormatName(import.format));
  w.Key("version").String(import.version);
  for (const ListSummary& l : info.lists) {
    if (l.name == import.list) w.Key("entries").Uint(l.entries);
  }
  w.Key("files_sha256").BeginArray();
  for (const std::string& f : import.files) w.String(Sha256Hex(f));
  w.EndArray().Key("bundle_sha256").String(info.ref.sha256).EndObject();
  return details;
}

}  // namespace

Status RegisterListRoutes(Engine& engine, MetricsRegistry& metrics, Router& router) {
  Rescreener::Options rescreen;
  rescreen.days = engine.options().screening.rescreen_days;
  rescreen.min_score = engine.options().screening.rescreen_min_score;
  VERDICT_ASSIGN_OR_RETURN(
      std::unique_ptr<Rescreener> started,
      Rescreener::Start(engine.journal(), engine.cases(), engine.clock(), metrics, rescreen));
  // Owned by the routes (so it stops with the router, before the engine); the engine's hook
  // holds it weakly.
  std::shared_ptr<Rescreener> rescreener = std::move(started);
  engine.SetPolicyActivatedHook(
      [weak = std::weak_ptr<Rescreener>(rescreener)](const Caller& caller,
                                                     std::shared_ptr<const ActivePolicy> previous,
                                                     std::shared_ptr<const ActivePolicy> next) {
        if (auto r = weak.lock()) r->OnPolicyActivated(caller, previous.get(), *next);
      });
  RouteOptions read;
  read.role = Role::kAnalyst | Role::kAdmin | Role::kAuditor;
  router.Add(
      "GET", "/v1/lists",
      [&engine, rescreener](HttpRequest&& request, Responder respond) {
        if (!request.query.empty()) {
          return respond(
              ErrorResponse(InvalidArgument("GET /v1/lists takes no query parameters", "query")));
        }
        const std::string& tenant = request.auth.tenant;
        auto active = engine.PolicyFor(tenant);
        HttpResponse response;
        JsonWriter w(response.body);
        w.BeginObject().Key("tenant").String(tenant);
        w.Key("policy").BeginObject().Key("version").String(active->ref().version);
        w.Key("sha256").String(active->ref().sha256);
        w.Key("scope").String(active != engine.policy() ? "tenant" : "deployment").EndObject();
        w.Key("lists").BeginArray();
        if (const CompiledPolicy* compiled = active->compiled()) {
          for (const ListSummary& l : compiled->info().lists) {
            w.BeginObject().Key("name").String(l.name).Key("kind").String(l.kind);
            w.Key("entries").Uint(l.entries).EndObject();
          }
        }
        w.EndArray().Key("rescreen");
        if (std::optional<RescreenRun> run = rescreener->Last(tenant)) {
          WriteRescreenStatusJson(*run, w);
        } else {
          w.Null();
        }
        w.EndObject();
        respond(std::move(response));
      },
      read);

  // One import at a time: each reads the tenant's stored bundle and writes it back with one
  // list replaced, and two at once would lose the first one's list. (A policy ingest at the
  // same moment as an import can still be overwritten by it: docs/policy.md says so.)
  auto imports_mu = std::make_shared<Mutex>();
  RouteOptions admin;
  admin.content_types = {"application/json"};
  admin.role = Role::kAdmin;
  router.Add(
      "POST", "/v1/lists/import",
      [&engine, imports_mu, rescreener](HttpRequest&& request, Responder respond) {
        MutexLock lock(*imports_mu);
        Result<ListImport> import = ParseListImportJson(request.body);
        if (!import.ok()) return respond(ErrorResponse(import.status()));
        const Caller caller{request.auth.tenant, request.auth.principal};
        if (import->tenant != caller.tenant) {
          return respond(ErrorResponse(Status(StatusCode::kPermissionDenied,
                                              "the import is for tenant '" + import->tenant +
                                                  "' but the key is of tenant '" + caller.tenant +
                                                  "'; expected a key of the list's tenant",
                                              "tenant")));
        }
        auto stored = engine.journal().GetRegistry(std::string(kTenantPolicyKey) + caller.tenant);
        if (!stored.ok()) return respond(ErrorResponse(stored.status()));
        if (!stored->has_value()) {
          return respond(ErrorResponse(
              Status(StatusCode::kFailedPrecondition,
                     "tenant '" + caller.tenant +
                         "' has no policy of its own; ingest one declaring `list " + import->list +
                         " = names from " + std::string(ListFormatName(import->format)) +
                         " ...` first (POST /v1/policy/ingest)",
                     "list")));
        }
        Result<BundleSource> current = ParseBundleJson(**stored);
        if (!current.ok()) return respond(ErrorResponse(current.status()));
        Result<BundleSource> next = WithImportedList(*current, *import);
        if (!next.ok()) return respond(ErrorResponse(next.status()));
        std::vector<Diagnostic> errors;
        auto compiled = CompileBundle(*next, kFeatureNames, &errors);
        if (!compiled.ok()) return respond(Refused(compiled.status(), errors));
        // The list's own version on record first; then the bundle that carries it, activated
        // (journaled as policy.activate, stored, swapped) as any ingested bundle is.
        Status recorded = engine.journal().RecordAdminEvent(
            journal::AdminEvent{caller.tenant, caller.principal, "lists.import", import->list,
                                ImportDetails(*import, (*compiled)->info())});
        if (!recorded.ok()) return respond(ErrorResponse(recorded));
        rescreener->ExpectListVersion(caller.tenant, import->list, import->version);
        Status activated = engine.ActivatePolicy(caller, BundleJson(*next), *compiled);
        rescreener->ForgetListVersion(caller.tenant);
        if (!activated.ok()) return respond(ErrorResponse(activated));
        HttpResponse response;
        JsonWriter w(response.body);
        w.BeginObject().Key("list").String(import->list).Key("version").String(import->version);
        w.Key("format").String(ListFormatName(import->format)).Key("policy");
        WriteBundleInfoJson((*compiled)->info(), w);
        w.EndObject();
        respond(std::move(response));
      },
      admin);
  return Status::Ok();
}

}  // namespace verdict
