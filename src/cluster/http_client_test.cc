#include "cluster/http_client.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

#include "api/http_server.h"
#include "api/router.h"
#include "cluster/loopback_port.h"
#include "common/metrics.h"

namespace verdict::cluster {
namespace {

using std::chrono::milliseconds;

// A server that answers with what it was asked: method, target, the headers it got and body.
class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto answer = [](HttpRequest&& request, Responder respond) {
      HttpResponse response;
      response.content_type = "text/plain";
      response.body = request.method + " " + request.path + "?" + request.query + "\n";
      for (const auto& [name, value] : request.headers) {
        response.body += name + ": " + value + "\n";
      }
      response.body += "\n" + request.body;
      response.headers = {{"X-Answer", "a"}, {"X-Answer", "b"}, {"Retry-After", "3"}};
      response.status = request.method == "DELETE" ? 202 : 200;
      respond(std::move(response));
    };
    for (const char* method : {"GET", "POST", "DELETE", "PATCH"}) {
      router_.Add(method, "/v1/thing", answer);
    }
    HttpServerOptions options;
    options.port = 0;
    // Idle connections are closed soon, so that a client meets one the server has closed.
    options.idle_timeout_ms = 50;
    auto server = HttpServer::Create(options, router_, metrics_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    server_->Start();
  }
  HttpEndpoint Endpoint() const { return {"127.0.0.1", std::to_string(server_->port())}; }

  MetricsRegistry metrics_;
  Router router_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpClientTest, SendsMethodTargetHeadersAndBodyAndReadsTheWholeAnswer) {
  HttpClient client(Endpoint(), milliseconds(10'000));
  HttpCall call;
  call.method = "PATCH";
  call.target = "/v1/thing?a=1&b=2";
  call.headers = {{"X-One", "1"},
                  {"X-One", "2"},
                  {"Content-Type", "text/csv"},
                  // The client frames the message itself.
                  {"Host", "elsewhere"},
                  {"Content-Length", "999"},
                  {"Connection", "close"}};
  call.body = "x,y\n1,2\n";
  auto answer = client.Call(call);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->Header("content-type"), "text/plain");
  EXPECT_EQ(answer->Header("retry-after"), "3");
  int x_answer = 0;
  for (const auto& [name, value] : answer->headers) x_answer += name == "x-answer";
  EXPECT_EQ(x_answer, 2);
  const std::string& seen = answer->body;
  EXPECT_TRUE(seen.starts_with("PATCH /v1/thing?a=1&b=2\n")) << seen;
  EXPECT_TRUE(seen.ends_with("\n\nx,y\n1,2\n")) << seen;
  for (const char* sent : {"x-one: 1\nx-one: 2\n", "content-type: text/csv\n",
                           "content-length: 8\n", "host: 127.0.0.1:"}) {
    EXPECT_NE(seen.find(sent), std::string::npos) << sent << " missing from\n" << seen;
  }
  EXPECT_EQ(seen.find("elsewhere"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("close"), std::string::npos) << seen;

  HttpCall del;
  del.method = "DELETE";
  del.target = "/v1/thing";
  auto deleted = client.Call(del);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->status, 202);
  auto posted = client.PostJson("/v1/thing", R"({"k": 1})");
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_NE(posted->body.find("content-type: application/json\n"), std::string::npos);
}

// A request that may not be sent twice still goes out after the server closed the idle
// connection: the client sees the closed connection before sending and opens a new one.
TEST_F(HttpClientTest, OpensANewConnectionWhenTheServerClosedTheKeptOne) {
  HttpClient client(Endpoint(), milliseconds(10'000));
  HttpCall call;
  call.method = "POST";
  call.target = "/v1/thing";
  call.body = "once";
  for (int i = 0; i < 3; ++i) {
    auto answer = client.Call(call);
    ASSERT_TRUE(answer.ok()) << i << ": " << answer.status().ToString();
    EXPECT_EQ(answer->status, 200);
    // Longer than the server's idle timeout, so that it has usually closed the connection.
    std::this_thread::sleep_for(milliseconds(300));
  }
}

// The answer to HEAD carries no body, whatever its Content-Length says; bytes a server sends
// after it anyway do not become the next call's answer.
TEST_F(HttpClientTest, AnAnswerToHeadHasNoBodyAndTheNextCallGetsItsOwnAnswer) {
  HttpClient client(Endpoint(), milliseconds(10'000));
  HttpCall head;
  head.method = "HEAD";
  head.target = "/v1/thing";
  auto answer = client.Call(head);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->status, 405);  // no route for HEAD
  EXPECT_EQ(answer->body, "");
  HttpCall post;
  post.method = "POST";
  post.target = "/v1/thing";
  post.body = "after head";
  auto next = client.Call(post);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->status, 200);
  EXPECT_TRUE(next->body.ends_with("\n\nafter head")) << next->body;
}

TEST(HttpClientDownTest, AServerThatIsDownIsUnavailable) {
  HttpClient client(HttpEndpoint{"127.0.0.1", std::to_string(FreeLoopbackPort())},
                    milliseconds(2'000));
  HttpCall call;
  auto answer = client.Call(call);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace verdict::cluster
