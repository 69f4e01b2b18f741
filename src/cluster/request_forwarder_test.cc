#include "cluster/request_forwarder.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/http_server.h"
#include "api/router.h"
#include "cluster/http_client.h"
#include "cluster/loopback_port.h"
#include "common/metrics.h"
#include "common/mutex.h"

namespace verdict::cluster {
namespace {

using std::chrono::milliseconds;

// What the owner saw: "METHOD path?query", then one "name: value" line per header, then an
// empty line and the body.
void EchoRequest(HttpRequest&& request, Responder respond) {
  HttpResponse response;
  response.content_type = "text/plain; charset=utf-8";
  response.body = request.method + " " + request.path;
  if (!request.query.empty()) response.body += "?" + request.query;
  response.body += "\n";
  for (const auto& [name, value] : request.headers) response.body += name + ": " + value + "\n";
  response.body += "\n" + request.body;
  response.headers = {{"X-Owner", "yes"},
                      {"Keep-Alive", "timeout=5"},
                      {"Connection", "x-owner-hop"},
                      {"X-Owner-Hop", "1"}};
  respond(std::move(response));
}

// An owner that asks the client to come back later.
void RefuseBusy(HttpRequest&&, Responder respond) {
  HttpResponse response;
  response.status = 429;
  response.body = R"({"error": {"code": "resource_exhausted", "message": "slow down"}})";
  response.headers.emplace_back("Retry-After", "7");
  respond(std::move(response));
}

// Answers held requests only when the test releases them, so that a worker stays busy.
class HeldAnswers {
 public:
  void Hold(Responder respond) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    held_.push_back(std::move(respond));
    changed_.SignalAll();
  }
  void WaitForHeld(size_t count) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (held_.size() < count) changed_.Wait(mu_);
  }
  void ReleaseAll() EXCLUDES(mu_) {
    std::vector<Responder> held;
    {
      MutexLock lock(mu_);
      held.swap(held_);
    }
    for (Responder& respond : held) {
      HttpResponse response;
      response.body = "released";
      respond(std::move(response));
    }
  }

 private:
  Mutex mu_;
  CondVar changed_;
  std::vector<Responder> held_ GUARDED_BY(mu_);
};

// A Responder whose answer the test waits for.
struct Reply {
  std::shared_ptr<std::promise<HttpResponse>> promise =
      std::make_shared<std::promise<HttpResponse>>();
  std::future<HttpResponse> future = promise->get_future();

  Responder responder() {
    return [p = promise](HttpResponse response) { p->set_value(std::move(response)); };
  }
};

std::string_view HeaderOf(const HttpResponse& response, std::string_view lower_name) {
  for (const auto& [name, value] : response.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == lower_name) return value;
  }
  return {};
}

class RequestForwarderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* method : {"GET", "POST", "PUT", "DELETE"}) {
      owner_router_.Add(method, "/v1/echo", EchoRequest);
    }
    owner_router_.Add("POST", "/v1/busy", RefuseBusy);
    owner_router_.Add("POST", "/v1/hold",
                      [this](HttpRequest&&, Responder respond) { held_.Hold(std::move(respond)); });
    owner_ = StartServer(owner_router_);
    owner_url_ = "http://127.0.0.1:" + std::to_string(owner_->port());
  }
  void TearDown() override {
    held_.ReleaseAll();
    if (forwarder_) forwarder_->Stop();
  }

  std::unique_ptr<HttpServer> StartServer(const Router& router) {
    HttpServerOptions options;
    options.port = 0;
    auto server = HttpServer::Create(options, router, metrics_);
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    (*server)->Start();
    return std::move(server).value();
  }
  RequestForwarder& MakeForwarder(int threads = 2, size_t queue_capacity = 16) {
    RequestForwarderOptions options;
    options.node_id = "node-b";
    options.threads = threads;
    options.queue_capacity = queue_capacity;
    options.timeout = milliseconds(10'000);
    auto forwarder = RequestForwarder::Create(options, metrics_);
    EXPECT_TRUE(forwarder.ok()) << forwarder.status().ToString();
    forwarder_ = std::move(forwarder).value();
    return *forwarder_;
  }
  HttpResponse ForwardAndWait(const std::string& url, HttpRequest request) {
    Reply reply;
    forwarder_->Forward(url, std::move(request), reply.responder());
    return reply.future.get();
  }
  uint64_t Failures(const char* reason) {
    return metrics_.GetCounter("verdict_cluster_forward_failures_total", "", {{"reason", reason}})
        ->value();
  }

  MetricsRegistry metrics_;
  HeldAnswers held_;
  Router owner_router_;
  std::unique_ptr<HttpServer> owner_;
  std::string owner_url_;
  // Declared after the servers: stopped first, while the connections it answers still exist.
  std::unique_ptr<RequestForwarder> forwarder_;
};

HttpRequest Request(std::string method, std::string path, std::string query = {}) {
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.query = std::move(query);
  return request;
}

TEST_F(RequestForwarderTest, PassesTheRequestAndTheAnswerEndToEnd) {
  MakeForwarder();
  HttpRequest request = Request("POST", "/v1/echo", "a=1&b=two%20words");
  request.content_type = "application/json";
  request.body = R"({"amount": 125})";
  request.headers = {{"content-type", "application/json"},
                     {"authorization", "Bearer key-1"},
                     {"x-request-id", "r-42"},
                     {"host", "node-b.example:8080"},
                     {"content-length", "15"},
                     {"connection", "keep-alive, X-Drop-Me"},
                     {"x-drop-me", "1"},
                     {"keep-alive", "timeout=30"},
                     {"te", "trailers"},
                     {"trailer", "x-checksum"},
                     {"upgrade", "websocket"},
                     {"proxy-authorization", "Basic abc"},
                     {"expect", "100-continue"}};
  HttpResponse response = ForwardAndWait(owner_url_, std::move(request));

  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, "text/plain; charset=utf-8");
  const std::string& seen = response.body;
  EXPECT_TRUE(seen.starts_with("POST /v1/echo?a=1&b=two%20words\n")) << seen;
  EXPECT_TRUE(seen.ends_with("\n\n{\"amount\": 125}")) << seen;
  for (const char* kept :
       {"content-type: application/json\n", "authorization: Bearer key-1\n", "x-request-id: r-42\n",
        "x-verdict-forwarded-by: node-b\n", "content-length: 15\n"}) {
    EXPECT_NE(seen.find(kept), std::string::npos) << kept << " missing from\n" << seen;
  }
  for (const char* dropped : {"x-drop-me", "keep-alive", "te:", "trailer", "upgrade",
                              "proxy-authorization", "expect", "node-b.example"}) {
    EXPECT_EQ(seen.find(dropped), std::string::npos) << dropped << " reached the owner\n" << seen;
  }
  EXPECT_EQ(HeaderOf(response, "x-owner"), "yes");
  for (const char* dropped :
       {"keep-alive", "connection", "x-owner-hop", "content-length", "content-type", "server"}) {
    EXPECT_EQ(HeaderOf(response, dropped), "") << dropped;
  }
  EXPECT_EQ(metrics_.GetCounter("verdict_cluster_forwarded_requests_total", "")->value(), 1u);
}

TEST_F(RequestForwarderTest, PassesTheOwnersRefusalWithItsRetryAfter) {
  MakeForwarder();
  HttpResponse response = ForwardAndWait(owner_url_, Request("POST", "/v1/busy"));
  EXPECT_EQ(response.status, 429);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_EQ(HeaderOf(response, "retry-after"), "7");
  EXPECT_NE(response.body.find("slow down"), std::string::npos);
  // The owner's own 404 too: the forwarder has no opinion on paths.
  EXPECT_EQ(ForwardAndWait(owner_url_, Request("GET", "/v1/nowhere")).status, 404);
  EXPECT_EQ(ForwardAndWait(owner_url_, Request("DELETE", "/v1/echo")).status, 200);
}

TEST_F(RequestForwarderTest, ARequestForwardedOnceIsNotForwardedAgain) {
  MakeForwarder();
  HttpRequest request = Request("POST", "/v1/echo");
  request.headers.emplace_back("x-verdict-forwarded-by", "node-a");
  HttpResponse response = ForwardAndWait(owner_url_, std::move(request));
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(HeaderOf(response, "retry-after"), "1");
  EXPECT_NE(response.body.find(R"("code":"unavailable")"), std::string::npos) << response.body;
  EXPECT_NE(response.body.find("node-a"), std::string::npos) << response.body;
  EXPECT_EQ(Failures("loop"), 1u);
}

TEST_F(RequestForwarderTest, AnOwnerThatIsDownGives503WithRetryAfter) {
  MakeForwarder();
  const std::string down = "http://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  for (const std::string& url : {down, std::string("not-a-url")}) {
    HttpResponse response = ForwardAndWait(url, Request("GET", "/v1/echo"));
    EXPECT_EQ(response.status, 503) << url;
    EXPECT_EQ(HeaderOf(response, "retry-after"), "1");
    EXPECT_NE(response.body.find(R"("code":"unavailable")"), std::string::npos) << response.body;
  }
  EXPECT_EQ(Failures("unreachable"), 2u);
  // The same forwarder still reaches an owner that is up.
  EXPECT_EQ(ForwardAndWait(owner_url_, Request("GET", "/v1/echo")).status, 200);
}

TEST_F(RequestForwarderTest, AFullQueueGives503AtOnce) {
  RequestForwarder& forwarder = MakeForwarder(/*threads=*/1, /*queue_capacity=*/1);
  Reply busy;  // takes the only worker until released
  forwarder.Forward(owner_url_, Request("POST", "/v1/hold"), busy.responder());
  held_.WaitForHeld(1);
  Reply queued;  // fills the queue
  forwarder.Forward(owner_url_, Request("GET", "/v1/echo"), queued.responder());
  Reply refused;
  forwarder.Forward(owner_url_, Request("GET", "/v1/echo"), refused.responder());
  HttpResponse response = refused.future.get();
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(HeaderOf(response, "retry-after"), "1");
  EXPECT_EQ(Failures("queue_full"), 1u);

  held_.ReleaseAll();
  EXPECT_EQ(busy.future.get().body, "released");
  EXPECT_EQ(queued.future.get().status, 200);
}

TEST_F(RequestForwarderTest, StopAnswersQueuedRequests) {
  RequestForwarder& forwarder = MakeForwarder(/*threads=*/1, /*queue_capacity=*/4);
  Reply busy;
  forwarder.Forward(owner_url_, Request("POST", "/v1/hold"), busy.responder());
  held_.WaitForHeld(1);
  Reply queued;
  forwarder.Forward(owner_url_, Request("GET", "/v1/echo"), queued.responder());
  std::thread stopper([&forwarder] { forwarder.Stop(); });
  EXPECT_EQ(queued.future.get().status, 503);
  held_.ReleaseAll();
  stopper.join();
  EXPECT_EQ(busy.future.get().body, "released");
  Reply late;
  forwarder.Forward(owner_url_, Request("GET", "/v1/echo"), late.responder());
  EXPECT_EQ(late.future.get().status, 503);
  EXPECT_EQ(Failures("stopped"), 2u);
}

// The whole path: a client talks to a node whose router hands what it does not serve itself to
// the forwarder, and gets the owner's answers.
TEST_F(RequestForwarderTest, ANodeWhoseRouterFallsBackAnswersWithTheOwnersResponses) {
  RequestForwarder& forwarder = MakeForwarder();
  Router front_router;
  front_router.Add("GET", "/healthz", [](HttpRequest&&, Responder respond) {
    HttpResponse response;
    response.body = "front";
    respond(std::move(response));
  });
  front_router.SetFallback(
      [&forwarder, url = owner_url_](HttpRequest&& request, Responder respond) {
        forwarder.Forward(url, std::move(request), std::move(respond));
      });
  std::unique_ptr<HttpServer> front = StartServer(front_router);
  HttpClient client(HttpEndpoint{"127.0.0.1", std::to_string(front->port())}, milliseconds(10'000));

  HttpCall echo;
  echo.method = "PUT";
  echo.target = "/v1/echo?x=1";
  echo.headers = {{"X-Custom", "c"},
                  {"TE", "trailers"},
                  {"Proxy-Authorization", "Basic x"},
                  {"Content-Type", "application/json"}};
  echo.body = "[1, 2]";
  auto answer = client.Call(echo);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->Header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(answer->Header("x-owner"), "yes");
  EXPECT_EQ(answer->Header("x-owner-hop"), "");
  EXPECT_TRUE(answer->body.starts_with("PUT /v1/echo?x=1\n")) << answer->body;
  EXPECT_TRUE(answer->body.ends_with("\n\n[1, 2]")) << answer->body;
  for (const char* kept :
       {"x-custom: c\n", "content-type: application/json\n", "x-verdict-forwarded-by: node-b\n"}) {
    EXPECT_NE(answer->body.find(kept), std::string::npos) << kept << " missing";
  }
  EXPECT_EQ(answer->body.find("te: trailers"), std::string::npos) << answer->body;
  EXPECT_EQ(answer->body.find("proxy-authorization"), std::string::npos) << answer->body;

  auto busy = client.PostJson("/v1/busy", "{}");
  ASSERT_TRUE(busy.ok()) << busy.status().ToString();
  EXPECT_EQ(busy->status, 429);
  EXPECT_EQ(busy->Header("retry-after"), "7");

  HttpCall health;
  health.target = "/healthz";
  auto local = client.Call(health);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->body, "front");

  HttpCall looped;
  looped.method = "POST";
  looped.target = "/v1/echo";
  looped.headers.emplace_back("X-Verdict-Forwarded-By", "node-c");
  auto refused = client.Call(looped);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->status, 503);
  EXPECT_EQ(refused->Header("retry-after"), "1");
  // Its requests are all answered: the forwarder holds none of the front server's connections.
  forwarder.Stop();
}

TEST(RequestForwarderOptionsTest, RefusesOptionsItCannotRunWith) {
  MetricsRegistry metrics;
  RequestForwarderOptions options;
  EXPECT_FALSE(RequestForwarder::Create(options, metrics).ok());  // no node id
  options.node_id = "n";
  options.threads = 0;
  EXPECT_FALSE(RequestForwarder::Create(options, metrics).ok());
  options.threads = 1;
  options.queue_capacity = 0;
  EXPECT_FALSE(RequestForwarder::Create(options, metrics).ok());
  options.queue_capacity = 1;
  EXPECT_TRUE(RequestForwarder::Create(options, metrics).ok());
}

}  // namespace
}  // namespace verdict::cluster
