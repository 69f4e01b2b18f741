#include "engine/lifecycle_routes.h"

#include <simdjson.h>

#include "api/error_response.h"
#include "common/json_writer.h"

namespace verdict {
namespace {

lifecycle::Actor ActorOf(const HttpRequest& request) {
  lifecycle::Actor actor;
  if (!request.auth.tenant.empty()) actor.tenant = request.auth.tenant;
  actor.principal = request.auth.principal.empty() ? "anonymous" : request.auth.principal;
  return actor;
}

// What the caller's tenant sees: its own models (with the deployment's, which it may activate),
// or the deployment's while it has none; "scope" says which. Never another tenant's (I7).
HttpResponse StatusResponse(Engine& engine, std::string_view tenant, int http_status = 200) {
  const lifecycle::ModelLifecycle& models = engine.tenant_models().View(tenant);
  HttpResponse response;
  JsonWriter w(response.body);
  Status written = models.WriteStatusJson(w);
  if (!written.ok()) return ErrorResponse(written);
  response.body.pop_back();  // the status object, with the scope added as its last member
  response.body += ",\"scope\":";
  AppendJsonString(response.body,
                   engine.tenant_models().Own(tenant) != nullptr ? "tenant" : "deployment");
  response.body += "}";
  response.status = http_status;
  return response;
}

// The caller's tenant's own lifecycle, made on its first change: an admin changes only the
// models of its own tenant's decisions.
Result<lifecycle::ModelLifecycle*> OwnModels(Engine& engine, const HttpRequest& request) {
  return engine.tenant_models().OwnOrCreate(ActorOf(request).tenant);
}

Result<simdjson::dom::object> ParseObject(simdjson::dom::parser& parser,
                                          const simdjson::padded_string& body,
                                          std::string_view expected) {
  simdjson::dom::element root;
  if (auto error = parser.parse(body).get(root); error != simdjson::SUCCESS) {
    return InvalidArgument(std::string("body is not valid JSON: ") +
                           simdjson::error_message(error));
  }
  simdjson::dom::object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument("body must be a JSON object " + std::string(expected));
  }
  return obj;
}

// {"name":"aml","version":"4","model":{...} or "...","manifest":{...},"reference":{...}}
Result<lifecycle::ModelUpload> ParseUpload(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string body(text);
  VERDICT_ASSIGN_OR_RETURN(
      simdjson::dom::object obj,
      ParseObject(parser, body,
                  "with \"name\", \"version\", \"model\" and optional \"manifest\" "
                  "and \"reference\""));
  lifecycle::ModelUpload upload;
  bool has_name = false, has_version = false, has_model = false;
  for (auto [key, value] : obj) {
    std::string_view s;
    if (key == "name" || key == "version") {
      if (value.get_string().get(s) != simdjson::SUCCESS) {
        return InvalidArgument(std::string(key) + " must be a string", std::string(key));
      }
      (key == "name" ? upload.name : upload.version) = std::string(s);
      (key == "name" ? has_name : has_version) = true;
    } else if (key == "model") {
      // The XGBoost JSON model as an object, or its file text as a string (which keeps the
      // file's bytes, and so its SHA-256, exactly).
      if (value.get_string().get(s) == simdjson::SUCCESS) {
        upload.model_json = std::string(s);
      } else if (value.is_object()) {
        upload.model_json = simdjson::minify(value);
      } else {
        return InvalidArgument("model must be the XGBoost JSON model (an object or its text)",
                               "model");
      }
      has_model = true;
    } else if (key == "manifest" || key == "reference") {
      if (!value.is_object()) {
        return InvalidArgument(std::string(key) + " must be a JSON object", std::string(key));
      }
      (key == "manifest" ? upload.manifest_json : upload.reference_json) = simdjson::minify(value);
    } else {
      const std::string name(std::string_view(key).substr(0, 40));
      return InvalidArgument("unknown field '" + name + "'", name);
    }
  }
  if (!has_name) return InvalidArgument("name is required", "name");
  if (!has_version) return InvalidArgument("version is required", "version");
  if (!has_model) return InvalidArgument("model is required", "model");
  return upload;
}

struct ActivateBody {
  lifecycle::ActivateMode mode = lifecycle::ActivateMode::kPrimary;
  std::optional<double> traffic_weight;
};

Result<ActivateBody> ParseActivate(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string body(text);
  VERDICT_ASSIGN_OR_RETURN(simdjson::dom::object obj,
                           ParseObject(parser, body,
                                       "with \"mode\" and, for a canary, "
                                       "\"traffic_weight\""));
  ActivateBody out;
  bool has_mode = false;
  for (auto [key, value] : obj) {
    if (key == "mode") {
      std::string_view s;
      if (value.get_string().get(s) != simdjson::SUCCESS) {
        return InvalidArgument("mode must be a string", "mode");
      }
      VERDICT_ASSIGN_OR_RETURN(out.mode, lifecycle::ParseActivateMode(s));
      has_mode = true;
    } else if (key == "traffic_weight") {
      double w = 0;
      if (value.get_double().get(w) != simdjson::SUCCESS) {
        int64_t i = 0;
        if (value.get_int64().get(i) != simdjson::SUCCESS) {
          return InvalidArgument("traffic_weight must be a number in [0.0001, 1]",
                                 "traffic_weight");
        }
        w = static_cast<double>(i);
      }
      out.traffic_weight = w;
    } else {
      const std::string name(std::string_view(key).substr(0, 40));
      return InvalidArgument("unknown field '" + name + "'", name);
    }
  }
  if (!has_mode) return InvalidArgument("mode is required", "mode");
  return out;
}

// An empty body, or {"reason": "..."}.
Result<std::string> ParseRollback(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::string();
  simdjson::dom::parser parser;
  simdjson::padded_string body(text);
  VERDICT_ASSIGN_OR_RETURN(simdjson::dom::object obj,
                           ParseObject(parser, body, "with an optional \"reason\""));
  std::string reason;
  for (auto [key, value] : obj) {
    std::string_view s;
    if (key != "reason") {
      const std::string name(std::string_view(key).substr(0, 40));
      return InvalidArgument("unknown field '" + name + "'", name);
    }
    if (value.get_string().get(s) != simdjson::SUCCESS || s.size() > 1000) {
      return InvalidArgument("reason must be a string of at most 1000 bytes", "reason");
    }
    reason = std::string(s);
  }
  return reason;
}

}  // namespace

void RegisterLifecycleRoutes(Engine& engine, Router& router) {
  const RouteOptions admin_json{{"application/json"}, Role::kAdmin};

  router.Add(
      "GET", "/v1/models",
      [&engine](HttpRequest&& request, Responder respond) {
        respond(StatusResponse(engine, ActorOf(request).tenant));
      },
      RouteOptions{{}, Role::kAnalyst});

  router.Add(
      "POST", "/v1/models",
      [&engine](HttpRequest&& request, Responder respond) {
        auto upload = ParseUpload(request.body);
        if (!upload.ok()) return respond(ErrorResponse(upload.status()));
        // A model that would be refused makes no lifecycle for a tenant that has none.
        if (engine.tenant_models().Own(ActorOf(request).tenant) == nullptr) {
          Status valid = engine.models().registry().Validate(*upload);
          if (!valid.ok()) return respond(ErrorResponse(valid));
        }
        bool created = false;
        auto models = OwnModels(engine, request);
        if (!models.ok()) return respond(ErrorResponse(models.status()));
        auto entry = (*models)->Register(*upload, ActorOf(request), &created);
        if (!entry.ok()) return respond(ErrorResponse(entry.status()));
        HttpResponse response;
        response.status = created ? 201 : 200;
        JsonWriter w(response.body);
        w.BeginObject().Key("name").String(entry->name).Key("version").String(entry->version);
        w.Key("sha256").String(entry->sha256).Key("created").Bool(created);
        w.Key("trees").Uint(entry->num_trees).Key("features").Uint(entry->num_features);
        w.Key("has_reference").Bool(entry->has_reference).EndObject();
        respond(std::move(response));
      },
      admin_json);

  router.Add(
      "POST", "/v1/models/{name}/{version}:activate",
      [&engine](HttpRequest&& request, Responder respond) {
        auto body = ParseActivate(request.body);
        if (!body.ok()) return respond(ErrorResponse(body.status()));
        // Another tenant's model is not in this tenant's registry: 404, as if it did not exist.
        // A tenant without models of its own can only activate the deployment's; refused
        // before anything is made for it.
        const std::string tenant = ActorOf(request).tenant;
        if (engine.tenant_models().Own(tenant) == nullptr) {
          const std::string name(request.PathParam("name"));
          const std::string version(request.PathParam("version"));
          Status valid = lifecycle::ValidateActivation(body->mode, body->traffic_weight);
          if (valid.ok()) valid = lifecycle::ValidateModelId(name, "name");
          if (valid.ok()) valid = lifecycle::ValidateModelId(version, "version");
          if (!valid.ok()) return respond(ErrorResponse(valid));
          auto found = engine.models().registry().Find(name, version);
          if (!found.ok()) return respond(ErrorResponse(found.status()));
          if (!found->has_value()) {
            return respond(ErrorResponse(
                NotFound("model " + name + " version " + version + " is not registered")));
          }
        }
        auto models = OwnModels(engine, request);
        if (!models.ok()) return respond(ErrorResponse(models.status()));
        Status activated =
            (*models)->Activate(request.PathParam("name"), request.PathParam("version"), body->mode,
                                body->traffic_weight, ActorOf(request));
        if (!activated.ok()) return respond(ErrorResponse(activated));
        respond(StatusResponse(engine, ActorOf(request).tenant));
      },
      admin_json);

  router.Add(
      "POST", "/v1/models:rollback",
      [&engine](HttpRequest&& request, Responder respond) {
        auto reason = ParseRollback(request.body);
        if (!reason.ok()) return respond(ErrorResponse(reason.status()));
        // A tenant that never changed its models has nothing of its own to roll back (and the
        // deployment's models are not its to change).
        lifecycle::ModelLifecycle* own = engine.tenant_models().Own(ActorOf(request).tenant);
        if (own == nullptr) {
          return respond(ErrorResponse(
              Status(StatusCode::kFailedPrecondition,
                     "nothing to roll back: this tenant uses the deployment's models")));
        }
        Status rolled = own->Rollback(ActorOf(request), *reason);
        if (!rolled.ok()) return respond(ErrorResponse(rolled));
        respond(StatusResponse(engine, ActorOf(request).tenant));
      },
      admin_json);
}

}  // namespace verdict
