#include "engine/key_routes.h"

#include <simdjson.h>

#include "api/error_response.h"
#include "common/json_writer.h"
#include "engine/admin_ledger.h"

namespace verdict {
namespace {

struct CreateRequest {
  std::string principal;
  uint32_t roles = 0;
};

// {"roles":["scorer"],"principal":"svc","tenant":"own tenant (optional)"}
Result<CreateRequest> ParseCreate(std::string_view text, std::string_view tenant) {
  simdjson::dom::parser parser;
  simdjson::padded_string body(text);
  simdjson::dom::object obj;
  if (parser.parse(body).get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument("body must be a JSON object with \"roles\" and optional \"principal\"");
  }
  CreateRequest out;
  for (auto [key, value] : obj) {
    std::string_view s;
    if (key == "principal") {
      if (value.get_string().get(s) != simdjson::SUCCESS) {
        return InvalidArgument("principal must be a string", "principal");
      }
      out.principal = std::string(s);
      VERDICT_RETURN_IF_ERROR(security::ValidatePrincipal(out.principal));
    } else if (key == "tenant") {
      if (value.get_string().get(s) != simdjson::SUCCESS || s != tenant) {
        return Status(StatusCode::kPermissionDenied,
                      "a key can only create keys for its own tenant", "tenant");
      }
    } else if (key == "roles") {
      simdjson::dom::array roles;
      if (value.get_array().get(roles) != simdjson::SUCCESS) {
        return InvalidArgument("roles must be an array of role names", "roles");
      }
      for (auto role : roles) {
        Role r;
        if (role.get_string().get(s) != simdjson::SUCCESS || !ParseRole(s, &r)) {
          return InvalidArgument("roles: each must be scorer, analyst, admin or auditor", "roles");
        }
        out.roles |= static_cast<uint32_t>(r);
      }
    } else {
      return InvalidArgument("unknown field '" + std::string(key.substr(0, 40)) + "'",
                             std::string(key.substr(0, 40)));
    }
  }
  if (out.roles == 0) return InvalidArgument("roles must name at least one role", "roles");
  return out;
}

}  // namespace

security::KeyAuditHook JournalKeyAudit(journal::Journal& journal) {
  return [&journal](const security::KeyChange& change) {
    return journal.RecordAdminEvent(journal::AdminEvent{
        change.tenant, change.principal, change.action, change.key_id, change.details_json});
  };
}

security::KeyLedger JournalKeyLedger(const journal::Journal& journal) {
  return [&journal](std::string_view tenant) -> Result<std::vector<security::KeyLedgerEntry>> {
    std::vector<security::KeyLedgerEntry> out;
    VERDICT_RETURN_IF_ERROR(VisitAdminEvents(journal, tenant, [&](const journal::AdminAction& a) {
      std::optional<security::KeyLedgerEntry> entry =
          security::KeyLedgerEntryOf(a.action, a.object, a.details_json);
      if (entry) out.push_back(std::move(*entry));
      return true;
    }));
    return out;
  };
}

void RegisterKeyRoutes(security::KeyStore& keys, const Clock& clock, Router& router) {
  const RouteOptions admin_json{{"application/json"}, Role::kAdmin};
  router.Add(
      "POST", "/v1/keys",
      [&keys, &clock](HttpRequest&& request, Responder respond) {
        auto parsed = ParseCreate(request.body, request.auth.tenant);
        if (!parsed.ok()) return respond(ErrorResponse(parsed.status()));
        auto created = keys.Create(request.auth.tenant, parsed->principal, parsed->roles,
                                   clock.NowMicros(), request.auth.principal);
        if (!created.ok()) return respond(ErrorResponse(created.status()));
        HttpResponse response;
        response.status = 201;
        JsonWriter w(response.body);
        w.BeginObject().Key("key").String(created->key).Key("id").String(created->stored.id);
        w.Key("info").Raw(security::StoredKeyPublicJson(created->stored)).EndObject();
        respond(std::move(response));
      },
      admin_json);
  router.Add(
      "GET", "/v1/keys",
      [&keys](HttpRequest&& request, Responder respond) {
        HttpResponse response;
        JsonWriter w(response.body);
        w.BeginObject().Key("keys").BeginArray();
        for (const auto& key : keys.List(request.auth.tenant)) {
          w.Raw(security::StoredKeyPublicJson(key));
        }
        w.EndArray().EndObject();
        respond(std::move(response));
      },
      RouteOptions{{}, Role::kAdmin});
  router.Add(
      "POST", "/v1/keys/{id}:revoke",
      [&keys, &clock](HttpRequest&& request, Responder respond) {
        auto revoked = keys.Revoke(request.PathParam("id"), request.auth.tenant, clock.NowMicros(),
                                   request.auth.principal);
        if (!revoked.ok()) return respond(ErrorResponse(revoked.status()));
        HttpResponse response;
        response.body = security::StoredKeyPublicJson(*revoked);
        respond(std::move(response));
      },
      admin_json);
}

}  // namespace verdict
