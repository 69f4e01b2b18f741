#include "engine/http_routes.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "api/decision_json.h"
#include "api/transaction_json.h"
#include "common/clock.h"
#include "features/feature_vector.h"
#include "formats/payment_message.h"
#include "policy/policy_bundle.h"
#include "tracing/trace_context.h"

namespace verdict {
namespace {

// The caller a decision is made for: the authenticated tenant and principal (I7), and the W3C
// trace its request belongs to (an invalid traceparent is ignored, docs/tracing.md).
Caller CallerOf(const HttpRequest& request) {
  return Caller{
      request.auth.tenant, request.auth.principal,
      tracing::ParseTraceParent(request.Header("traceparent"), request.Header("tracestate"))};
}

// A traced decision's answer names the engine's decision span in the caller's trace.
void AddTraceParent(const Decision& decision, HttpResponse& response) {
  if (decision.trace.trace_id.empty() || decision.trace.span_id.empty()) return;
  response.headers.emplace_back(
      "traceparent", tracing::FormatTraceParent(decision.trace.trace_id, decision.trace.span_id,
                                                decision.trace.sampled));
}

// A refused admission: 429 with Retry-After for bulk over capacity or that would wait past its
// deadline (until the backlog would leave a bulk request its deadline: BulkRetryAfterSeconds),
// or a tenant over its rate (the exact wait its token bucket needs) or share; 503 otherwise.
HttpResponse Refused(Engine& engine, const HttpRequest& request, const Status& status) {
  HttpResponse response = ErrorResponse(status);
  int64_t seconds = 1;
  if (status.code() == StatusCode::kResourceExhausted && status.field() != "tenant") {
    seconds = engine.BulkRetryAfterSeconds();
    // Optionally as for a tenant below: each refusal costs the I/O thread a read, a parse and a
    // write, and at saturation those reads are what keep it from a realtime request's
    // connection (docs/architecture.md, "Realtime listener").
    if (engine.options().pause_after_bulk_refusal) response.pause_reading_ms = seconds * 1000;
  } else if (status.code() == StatusCode::kResourceExhausted) {
    seconds = engine.RetryAfterSeconds(request.auth.tenant);
    // The tenant is over its rate or share: its connection is not read again until the time
    // it was told to wait has passed (server.max_read_pause_ms caps it), so a flood costs the
    // engine one refusal per connection per pause instead of one per request.
    response.pause_reading_ms = seconds * 1000;
  }
  response.headers.emplace_back("Retry-After", std::to_string(seconds));
  return response;
}

TransactionDecoder& ThreadDecoder() {
  thread_local TransactionDecoder decoder;
  return decoder;
}

// Every route names its role (docs/security.md); only liveness and readiness are public.
const RouteOptions kScorerJson{{"application/json"}, Role::kScorer};
const RouteOptions kAdminJson{{"application/json"}, Role::kAdmin};
const RouteOptions kAnalystRead{{}, Role::kAnalyst};
const RouteOptions kPolicyRead{{}, Role::kAnalyst | Role::kAdmin};
// Metrics: a tenant's admins and auditors see its own series and the engine-wide ones; those of
// a [server] metrics_operator_tenants tenant see every tenant's.
const RouteOptions kMetricsRead{{}, Role::kAdmin | Role::kAuditor};

// `limit=N` in a query string (1..1000); other parameters are refused by name.
Status ParseLimit(std::string_view query, size_t* limit) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    size_t eq = pair.find('=');
    std::string_view key = pair.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    if (key != "limit") {
      return InvalidArgument("unknown query parameter '" + std::string(key.substr(0, 40)) + "'",
                             std::string(key.substr(0, 40)));
    }
    size_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n < 1 || n > 1000) {
      return InvalidArgument("limit must be an integer from 1 to 1000", "limit");
    }
    *limit = n;
  }
  return Status::Ok();
}

// "decisions": one decision or item error per item, in order (the :batch answer).
void WriteDecisionItems(const std::vector<Result<Decision>>& decisions, JsonWriter& w) {
  w.Key("decisions").BeginArray();
  for (const Result<Decision>& d : decisions) {
    if (d.ok()) {
      WriteDecisionJson(*d, w);
    } else {
      WriteErrorJson(d.status(), w);
    }
  }
  w.EndArray();
}

// Decision routes also take payment messages (ISO 20022 XML, SWIFT MT; docs/formats.md).
const RouteOptions kScorerDecisionBody{
    {"application/json", "application/xml", "text/xml", "text/plain", "application/x-swift-mt"},
    Role::kScorer};

// Answers a request whose body is a payment message: one decision (or item error) per
// transaction, in message order, as :batch answers, with the message's type and id. A pacs.002
// status report yields no decisions.
void AnswerPaymentMessage(Engine& engine, const HttpRequest& request, Responder respond) {
  Result<DecodedPaymentMessage> message =
      DecodePaymentMessageDetailed(request.content_type, request.content_type_params, request.body);
  if (!message.ok()) return respond(ErrorResponse(message.status()));
  // A message with a date but no time (an MT without :13C:) happened when it reached us.
  StampTimeOfReceipt(*message, engine.clock().NowMicros());
  struct MessageInfo {
    std::string type;
    std::string id;
    size_t transactions = 0;
    void Write(JsonWriter& w) const {
      w.Key("message").BeginObject();
      w.Key("type").String(type);
      w.Key("id").String(id);
      w.Key("transactions").Uint(transactions);
      w.EndObject();
    }
  };
  auto info = std::make_shared<MessageInfo>(
      MessageInfo{message->message_type, message->message_id, message->transactions.size()});
  if (message->transactions.empty()) {
    HttpResponse response;
    JsonWriter w(response.body);
    w.BeginObject();
    info->Write(w);
    w.Key("decisions").BeginArray().EndArray();
    w.Key("status_report").BeginObject();
    w.Key("original_message_id").String(message->iso.original_message_id);
    w.Key("group_status").String(message->iso.group_status);
    w.Key("statuses").BeginArray();
    for (const PaymentStatusEntry& e : message->iso.statuses) {
      w.BeginObject();
      w.Key("original_tx_id").String(e.original_tx_id);
      w.Key("original_end_to_end_id").String(e.original_end_to_end_id);
      w.Key("status").String(e.status);
      w.Key("reason").String(e.reason);
      w.EndObject();
    }
    w.EndArray().EndObject().EndObject();
    return respond(std::move(response));
  }
  auto shared_respond = std::make_shared<Responder>(std::move(respond));
  Status admitted = engine.SubmitBatch(
      std::move(message->transactions), CallerOf(request), request.received_at_ns,
      [shared_respond, info](std::vector<Result<Decision>> decisions) {
        HttpResponse response;
        JsonWriter w(response.body);
        w.BeginObject();
        info->Write(w);
        WriteDecisionItems(decisions, w);
        w.EndObject();
        (*shared_respond)(std::move(response));
      });
  if (!admitted.ok()) (*shared_respond)(Refused(engine, request, admitted));
}

// True when the request was a payment message and has been answered (or refused).
bool TookPaymentMessage(Engine& engine, const HttpRequest& request, Responder& respond) {
  Result<PaymentMediaType> media =
      ClassifyPaymentMediaType(request.content_type, request.content_type_params);
  if (!media.ok()) {
    respond(ErrorResponse(media.status()));
    return true;
  }
  if (*media == PaymentMediaType::kOther) return false;
  AnswerPaymentMessage(engine, request, std::move(respond));
  return true;
}

// Scoring: one transaction, or a batch (JSON, or a payment message of one or more).
void RegisterScoringRoutes(Engine& engine, Router& router) {
  router.Add(
      "POST", "/v1/decisions",
      [&engine](HttpRequest&& request, Responder respond) {
        if (TookPaymentMessage(engine, request, respond)) return;
        Result<Transaction> txn = ThreadDecoder().DecodeOne(request.body);
        if (!txn.ok()) return respond(ErrorResponse(txn.status()));
        auto shared_respond = std::make_shared<Responder>(std::move(respond));
        Status admitted =
            engine.Submit(std::move(txn).value(), CallerOf(request), request.received_at_ns,
                          [shared_respond](Result<Decision> decision) {
                            if (!decision.ok()) {
                              return (*shared_respond)(ErrorResponse(decision.status()));
                            }
                            HttpResponse response;
                            response.body = DecisionToJson(*decision);
                            AddTraceParent(*decision, response);
                            (*shared_respond)(std::move(response));
                          });
        if (!admitted.ok()) (*shared_respond)(Refused(engine, request, admitted));
      },
      kScorerDecisionBody);

  router.Add(
      "POST", "/v1/decisions:batch",
      [&engine](HttpRequest&& request, Responder respond) {
        if (TookPaymentMessage(engine, request, respond)) return;
        auto items = ThreadDecoder().DecodeBatch(request.body, engine.options().max_batch_items);
        if (!items.ok()) return respond(ErrorResponse(items.status()));
        auto shared_respond = std::make_shared<Responder>(std::move(respond));
        Status admitted =
            engine.SubmitBatch(std::move(items).value(), CallerOf(request), request.received_at_ns,
                               [shared_respond](std::vector<Result<Decision>> decisions) {
                                 HttpResponse response;
                                 JsonWriter w(response.body);
                                 w.BeginObject();
                                 WriteDecisionItems(decisions, w);
                                 w.EndObject();
                                 (*shared_respond)(std::move(response));
                               });
        if (!admitted.ok()) (*shared_respond)(Refused(engine, request, admitted));
      },
      kScorerDecisionBody);
}

// Reading decisions back: by id, by transaction, an account's latest.
void RegisterDecisionLookupRoutes(Engine& engine, Router& router) {
  auto decision_response = [](Result<std::optional<Decision>> found, std::string_view what) {
    if (!found.ok()) return ErrorResponse(found.status());
    if (!*found) return ErrorResponse(NotFound("no decision for " + std::string(what)));
    HttpResponse response;
    response.body = DecisionToJson(**found);
    return response;
  };

  router.Add(
      "GET", "/v1/decisions/{decision_id}",
      [&engine, decision_response](HttpRequest&& request, Responder respond) {
        std::string_view id = request.PathParam("decision_id");
        auto uuid = Uuid::Parse(id);
        if (!uuid) {
          return respond(ErrorResponse(InvalidArgument(
              "decision_id must be a UUID such as 0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11",
              "decision_id")));
        }
        respond(decision_response(engine.FindDecision(request.auth.tenant, *uuid),
                                  "decision " + std::string(id)));
      },
      kAnalystRead);

  router.Add(
      "GET", "/v1/transactions/{transaction_id}/decision",
      [&engine, decision_response](HttpRequest&& request, Responder respond) {
        std::string_view id = request.PathParam("transaction_id");
        respond(decision_response(engine.FindDecisionForTransaction(request.auth.tenant, id),
                                  "transaction " + std::string(id)));
      },
      kAnalystRead);

  router.Add(
      "GET", "/v1/accounts/{account}/decisions",
      [&engine](HttpRequest&& request, Responder respond) {
        size_t limit = 50;
        Status bad_limit = ParseLimit(request.query, &limit);
        if (!bad_limit.ok()) return respond(ErrorResponse(bad_limit));
        auto decisions = engine.RecentDecisionsForAccount(request.auth.tenant,
                                                          request.PathParam("account"), limit);
        if (!decisions.ok()) return respond(ErrorResponse(decisions.status()));
        HttpResponse response;
        JsonWriter w(response.body);
        w.BeginObject().Key("decisions").BeginArray();
        for (const Decision& d : *decisions) WriteDecisionJson(d, w);
        w.EndArray().EndObject();
        respond(std::move(response));
      },
      kAnalystRead);
}

// The policy in force, and checking or activating a bundle.
void RegisterPolicyRoutes(Engine& engine, Router& router) {
  router.Add(
      "GET", "/v1/policy",
      [&engine](HttpRequest&& request, Responder respond) {
        // The policy in force for the caller's tenant; "scope" says whether it is the tenant's
        // own or the deployment's. Another tenant's policy is never shown (I7).
        auto active = engine.PolicyFor(request.auth.tenant);
        // The deployment's policy never changes after start: any other is the tenant's own.
        const bool own = active != engine.policy();
        HttpResponse response;
        if (active->compiled() != nullptr) {
          JsonWriter bundle(response.body);
          WriteBundleInfoJson(active->compiled()->info(), bundle);
          // The bundle's object, with the scope added as its last member.
          response.body.pop_back();
          response.body += ",\"scope\":";
          AppendJsonString(response.body, own ? "tenant" : "deployment");
          response.body += "}";
        } else {
          JsonWriter w(response.body);
          w.BeginObject()
              .Key("name")
              .String("fixed rules")
              .Key("version")
              .String(active->ref().version);
          w.Key("sha256").String(active->ref().sha256);
          w.Key("scope").String(own ? "tenant" : "deployment").EndObject();
        }
        respond(std::move(response));
      },
      kPolicyRead);

  // Validate and ingest share the checking; ingest then activates atomically. A bundle with
  // errors is refused with all of them, and the active policy keeps serving.
  auto check_bundle =
      [](const HttpRequest& request,
         std::vector<Diagnostic>* errors) -> Result<std::shared_ptr<const CompiledPolicy>> {
    VERDICT_ASSIGN_OR_RETURN(BundleSource source, ParseBundleJson(request.body));
    return CompileBundle(source, kFeatureNames, errors);
  };
  auto refused_bundle = [](const Status& status, const std::vector<Diagnostic>& errors) {
    return ErrorResponse(status, [&errors](JsonWriter& w) {
      w.Key("errors");
      WriteDiagnosticsJson(errors, w);
    });
  };
  router.Add(
      "POST", "/v1/policy:validate",
      [check_bundle, refused_bundle](HttpRequest&& request, Responder respond) {
        std::vector<Diagnostic> errors;
        auto compiled = check_bundle(request, &errors);
        if (!compiled.ok()) return respond(refused_bundle(compiled.status(), errors));
        HttpResponse response;
        JsonWriter w(response.body);
        w.BeginObject().Key("valid").Bool(true).Key("policy");
        WriteBundleInfoJson((*compiled)->info(), w);
        w.EndObject();
        respond(std::move(response));
      },
      kAdminJson);
  router.Add(
      "POST", "/v1/policy/ingest",
      [&engine, check_bundle, refused_bundle](HttpRequest&& request, Responder respond) {
        std::vector<Diagnostic> errors;
        auto compiled = check_bundle(request, &errors);
        if (!compiled.ok()) return respond(refused_bundle(compiled.status(), errors));
        // The caller's tenant only: another tenant's decisions keep their policy (I7).
        Status activated = engine.ActivatePolicy(CallerOf(request), request.body, *compiled);
        if (!activated.ok()) return respond(ErrorResponse(activated));
        HttpResponse response;
        JsonWriter w(response.body);
        WriteBundleInfoJson((*compiled)->info(), w);
        respond(std::move(response));
      },
      kAdminJson);
}

// Liveness, readiness and metrics.
void RegisterHealthRoutes(Engine& engine, MetricsRegistry& metrics, Router& router) {
  router.Add("GET", "/healthz", [](HttpRequest&&, Responder respond) {
    HttpResponse response;
    response.body = R"({"status":"ok"})";
    respond(std::move(response));
  });

  router.Add("GET", "/readyz", [&engine](HttpRequest&&, Responder respond) {
    std::string detail;
    HttpResponse response;
    JsonWriter w(response.body);
    const bool ready = engine.Ready(&detail);
    if (!ready) response.status = 503;
    w.BeginObject().Key("ready").Bool(ready);
    if (!detail.empty()) w.Key("reason").String(detail);
    w.EndObject();
    respond(std::move(response));
  });

  router.Add(
      "GET", "/metrics",
      [&engine, &metrics](HttpRequest&& request, Responder respond) {
        engine.RefreshBreakerGauges();
        const std::vector<std::string>& operators = engine.options().metrics_operator_tenants;
        const bool operator_tenant =
            std::find(operators.begin(), operators.end(), request.auth.tenant) != operators.end();
        HttpResponse response;
        response.content_type = "text/plain; version=0.0.4; charset=utf-8";
        response.body = metrics.RenderPrometheus(
            operator_tenant ? std::nullopt : std::optional<std::string>(request.auth.tenant));
        respond(std::move(response));
      },
      kMetricsRead);
}

}  // namespace

void RegisterEngineRoutes(Engine& engine, MetricsRegistry& metrics, Router& router) {
  // In this order: Router::Routes() lists routes as they were added.
  RegisterScoringRoutes(engine, router);
  RegisterDecisionLookupRoutes(engine, router);
  RegisterPolicyRoutes(engine, router);
  RegisterHealthRoutes(engine, metrics, router);
}

}  // namespace verdict
