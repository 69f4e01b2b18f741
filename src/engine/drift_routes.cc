#include "engine/drift_routes.h"

#include <utility>

#include "api/error_response.h"
#include "journal/admin_event.h"
#include "monitor/drift_json.h"

namespace verdict {
namespace {

HttpResponse NoMonitor() {
  return ErrorResponse(
      NotFound("drift watch is off: the model directory has no reference.json, no "
               "model is configured, or [drift] enabled = false"));
}

}  // namespace

void RegisterDriftRoutes(Engine& engine, Router& router) {
  RouteOptions read;
  read.role = Role::kAnalyst;
  router.Add(
      "GET", "/v1/drift",
      [&engine](HttpRequest&& request, Responder respond) {
        // The monitor of the model deciding the caller's tenant (its own model's, or the
        // deployment's shared one).
        monitor::DriftMonitor* drift = engine.drift(request.auth.tenant);
        if (drift == nullptr) return respond(NoMonitor());
        HttpResponse response;
        response.body = monitor::DriftSnapshotToJson(drift->Snapshot(), *drift, drift->options());
        respond(std::move(response));
      },
      read);

  RouteOptions admin;
  admin.role = Role::kAdmin;
  router.Add(
      "POST", "/v1/drift:clear",
      [&engine](HttpRequest&& request, Responder respond) {
        monitor::DriftMonitor* drift = engine.drift(request.auth.tenant);
        if (drift == nullptr) return respond(NoMonitor());
        const std::string who =
            request.auth.principal.empty() ? std::string("anonymous") : request.auth.principal;
        // On record first: a freeze is never lifted without an admin event saying who did it.
        const monitor::DriftSnapshot before = drift->Snapshot();
        std::string details;
        JsonWriter d(details);
        d.BeginObject()
            .Key("level")
            .Int(before.level)
            .Key("frozen")
            .Bool(before.frozen)
            .Key("drift_score")
            .Double(before.drift_score)
            .EndObject();
        const Status journaled = engine.journal().RecordAdminEvent(journal::AdminEvent{
            request.auth.tenant.empty() ? std::string("default") : request.auth.tenant, who,
            "drift.clear", drift->model_name() + "/" + drift->model_version(), details});
        if (!journaled.ok()) {
          return respond(ErrorResponse(journaled));
        }
        // The kept freeze goes too, so that a restart does not bring it back.
        const Status cleared = drift->ClearFreeze(who);
        if (!cleared.ok()) return respond(ErrorResponse(cleared));
        HttpResponse response;
        JsonWriter w(response.body);
        const monitor::DriftSnapshot snapshot = drift->Snapshot();
        w.BeginObject()
            .Key("cleared")
            .Bool(true)
            .Key("by")
            .String(who)
            .Key("level")
            .Int(snapshot.level)
            .Key("frozen")
            .Bool(snapshot.frozen)
            .EndObject();
        respond(std::move(response));
      },
      admin);
}

}  // namespace verdict
