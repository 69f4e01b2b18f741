#include "webhooks/webhook_routes.h"

#include <string>
#include <utility>

#include "common/json_writer.h"
#include "common/rfc3339.h"

namespace verdict::webhooks {
namespace {

// An RFC 3339 time, or null for "never".
void WriteTime(JsonWriter& w, std::string_view key, int64_t micros) {
  w.Key(key);
  if (micros == 0) {
    w.Null();
  } else {
    w.String(FormatRfc3339Micros(micros));
  }
}

void WriteEndpoint(JsonWriter& w, const EndpointStatus& s) {
  w.BeginObject().Key("id").String(s.id).Key("url").String(s.url).Key("tenant");
  if (s.tenant.empty()) {
    w.Null();
  } else {
    w.String(s.tenant);
  }
  w.Key("events").BeginArray();
  for (const std::string& event : s.events) w.String(event);
  w.EndArray();
  w.Key("delivered_through_seq").Uint(s.delivered_through_seq);
  w.Key("journal_seq").Uint(s.journal_seq).Key("pending_records").Uint(s.pending_records);
  w.Key("delivered_total").Uint(s.delivered_total);
  w.Key("failed_attempts_total").Uint(s.failed_attempts_total);
  w.Key("consecutive_failures").Uint(s.consecutive_failures);
  w.Key("retrying");
  if (s.retrying_delivery.empty()) {
    w.Null();
  } else {
    w.BeginObject().Key("delivery_id").String(s.retrying_delivery);
    w.Key("event").String(s.retrying_event);
    WriteTime(w, "next_attempt_at", s.next_attempt_at_us);
    w.EndObject();
  }
  WriteTime(w, "last_attempt_at", s.last_attempt_at_us);
  w.Key("last_status").Int(s.last_status).Key("last_error");
  if (s.last_error.empty()) {
    w.Null();
  } else {
    w.String(s.last_error);
  }
  WriteTime(w, "last_success_at", s.last_success_at_us);
  w.EndObject();
}

}  // namespace

std::string EndpointsToJson(const std::vector<EndpointStatus>& endpoints) {
  std::string body;
  JsonWriter w(body);
  w.BeginObject().Key("endpoints").BeginArray();
  for (const EndpointStatus& s : endpoints) WriteEndpoint(w, s);
  w.EndArray().EndObject();
  return body;
}

void RegisterWebhookRoutes(const WebhookDispatcher& dispatcher, Router& router) {
  RouteOptions admin;
  admin.role = Role::kAdmin;
  router.Add(
      "GET", "/v1/webhooks",
      [&dispatcher](HttpRequest&& request, Responder respond) {
        HttpResponse response;
        response.body = EndpointsToJson(dispatcher.StatusFor(request.auth.tenant));
        respond(std::move(response));
      },
      admin);
}

}  // namespace verdict::webhooks
