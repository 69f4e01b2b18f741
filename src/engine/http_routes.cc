#include "engine/http_routes.h"

#include "api/decision_json.h"
#include "api/transaction_json.h"
#include "common/clock.h"

namespace verdict {
namespace {

HttpResponse ErrorResponse(const Status& status) {
  HttpResponse response;
  response.status = HttpStatusOf(status.code());
  response.body = ErrorToJson(status);
  return response;
}

HttpResponse Overloaded() {
  HttpResponse response = ErrorResponse(
      Status(StatusCode::kResourceExhausted, "the engine's queue is full; retry shortly"));
  response.headers.emplace_back("Retry-After", "1");
  return response;
}

TransactionDecoder& ThreadDecoder() {
  thread_local TransactionDecoder decoder;
  return decoder;
}

const RouteOptions kJsonBody{{"application/json"}};

}  // namespace

void RegisterEngineRoutes(Engine& engine, MetricsRegistry& metrics, Router& router) {
  router.Add(
      "POST", "/v1/decisions",
      [&engine](HttpRequest&& request, Responder respond) {
        Result<Transaction> txn = ThreadDecoder().DecodeOne(request.body);
        if (!txn.ok()) return respond(ErrorResponse(txn.status()));
        auto shared_respond = std::make_shared<Responder>(std::move(respond));
        bool queued = engine.Submit(std::move(txn).value(), request.received_at_ns,
                                    [shared_respond](Result<Decision> decision) {
                                      if (!decision.ok()) {
                                        return (*shared_respond)(ErrorResponse(decision.status()));
                                      }
                                      HttpResponse response;
                                      response.body = DecisionToJson(*decision);
                                      (*shared_respond)(std::move(response));
                                    });
        if (!queued) (*shared_respond)(Overloaded());
      },
      kJsonBody);

  router.Add(
      "POST", "/v1/decisions:batch",
      [&engine](HttpRequest&& request, Responder respond) {
        auto items = ThreadDecoder().DecodeBatch(request.body, engine.options().max_batch_items);
        if (!items.ok()) return respond(ErrorResponse(items.status()));
        auto shared_respond = std::make_shared<Responder>(std::move(respond));
        bool queued = engine.SubmitBatch(std::move(items).value(), request.received_at_ns,
                                         [shared_respond](std::vector<Result<Decision>> decisions) {
                                           HttpResponse response;
                                           JsonWriter w(response.body);
                                           w.BeginObject().Key("decisions").BeginArray();
                                           for (const Result<Decision>& d : decisions) {
                                             if (d.ok()) {
                                               WriteDecisionJson(*d, w);
                                             } else {
                                               WriteErrorJson(d.status(), w);
                                             }
                                           }
                                           w.EndArray().EndObject();
                                           (*shared_respond)(std::move(response));
                                         });
        if (!queued) (*shared_respond)(Overloaded());
      },
      kJsonBody);

  router.Add("GET", "/healthz", [](HttpRequest&&, Responder respond) {
    HttpResponse response;
    response.body = R"({"status":"ok"})";
    respond(std::move(response));
  });

  router.Add("GET", "/readyz", [&engine](HttpRequest&&, Responder respond) {
    std::string why;
    HttpResponse response;
    JsonWriter w(response.body);
    if (engine.Ready(&why)) {
      w.BeginObject().Key("ready").Bool(true).EndObject();
    } else {
      response.status = 503;
      w.BeginObject().Key("ready").Bool(false).Key("reason").String(why).EndObject();
    }
    respond(std::move(response));
  });

  router.Add("GET", "/metrics", [&metrics](HttpRequest&&, Responder respond) {
    HttpResponse response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = metrics.RenderPrometheus();
    respond(std::move(response));
  });
}

}  // namespace verdict
