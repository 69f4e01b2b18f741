#include "api/router.h"

#include <gtest/gtest.h>
#include <simdjson.h>

namespace verdict {
namespace {

HttpResponse Dispatch(const Router& router, std::string method, std::string path,
                      std::string body = {}, std::string content_type = {}) {
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  request.content_type = std::move(content_type);
  HttpResponse out;
  router.Dispatch(std::move(request), [&out](HttpResponse r) { out = std::move(r); });
  return out;
}

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto echo = [](std::string tag) {
      return [tag](HttpRequest&& request, Responder respond) {
        HttpResponse r;
        r.body = tag;
        for (const auto& [k, v] : request.path_params) r.body += " " + k + "=" + v;
        respond(std::move(r));
      };
    };
    router_.Add("POST", "/v1/decisions", echo("decide"), {{"application/json"}});
    router_.Add("POST", "/v1/decisions:batch", echo("batch"), {{"application/json"}});
    router_.Add("GET", "/v1/decisions/{decision_id}", echo("get"));
    router_.Add("POST", "/v1/models/{name}/{version}:activate", echo("activate"));
  }
  Router router_;
};

TEST_F(RouterTest, MatchesLiteralsCapturesAndSuffixes) {
  EXPECT_EQ(Dispatch(router_, "POST", "/v1/decisions", "{}", "application/json").body, "decide");
  EXPECT_EQ(Dispatch(router_, "POST", "/v1/decisions:batch", "{}", "application/json").body,
            "batch");
  EXPECT_EQ(Dispatch(router_, "GET", "/v1/decisions/abc").body, "get decision_id=abc");
  EXPECT_EQ(Dispatch(router_, "POST", "/v1/models/aml/3:activate").body,
            "activate name=aml version=3");
}

TEST_F(RouterTest, UnknownPathIs404AndWrongMethodIs405) {
  EXPECT_EQ(Dispatch(router_, "GET", "/nope").status, 404);
  EXPECT_EQ(Dispatch(router_, "GET", "/v1/decisions/a/b").status, 404);
  EXPECT_EQ(Dispatch(router_, "POST", "/v1/models/aml/3").status, 404);
  HttpResponse r = Dispatch(router_, "GET", "/v1/decisions");
  EXPECT_EQ(r.status, 405);
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].second, "POST");
}

// The error quotes the path: bytes that are not UTF-8 are replaced, so the body stays JSON.
TEST_F(RouterTest, AnErrorQuotingAPathThatIsNotUtf8IsStillJson) {
  for (const char* path : {"/\xff\xfe", "/nope/\xc3"}) {
    HttpResponse r = Dispatch(router_, "GET", path);
    EXPECT_EQ(r.status, 404);
    EXPECT_TRUE(simdjson::validate_utf8(r.body.data(), r.body.size())) << r.body;
    EXPECT_NE(r.body.find("\xEF\xBF\xBD"), std::string::npos) << r.body;
  }
}

// A gate answers an admitted request instead of its handler (a damaged journal: 503), and
// passes what it lets through; it sees the matched pattern, not the raw path.
TEST_F(RouterTest, AGateAnswersInsteadOfTheHandler) {
  std::vector<std::string> seen;
  router_.SetGate(
      [&seen](const HttpRequest& request, std::string_view route) -> std::optional<HttpResponse> {
        seen.emplace_back(route);
        if (request.method == "GET") return std::nullopt;
        HttpResponse closed;
        closed.status = 503;
        closed.body = "closed";
        return closed;
      });
  HttpResponse refused = Dispatch(router_, "POST", "/v1/decisions", "{}", "application/json");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.body, "closed");
  EXPECT_EQ(Dispatch(router_, "GET", "/v1/decisions/abc").body, "get decision_id=abc");
  EXPECT_EQ(Dispatch(router_, "GET", "/nope").status, 404);  // no route: the gate is not asked
  EXPECT_EQ(seen, (std::vector<std::string>{"/v1/decisions", "/v1/decisions/{decision_id}"}));
}

TEST_F(RouterTest, WrongContentTypeIs415) {
  HttpResponse r = Dispatch(router_, "POST", "/v1/decisions", "{}", "text/plain");
  EXPECT_EQ(r.status, 415);
  EXPECT_NE(r.body.find("application/json"), std::string::npos);
  // An empty body is left to the handler, which explains what it expected.
  EXPECT_EQ(Dispatch(router_, "POST", "/v1/decisions", "", "").body, "decide");
}

// Requests no route takes reach the fallback whole and unauthenticated (the node it hands them
// to checks the credential); routes keep their own answers, a role's 401 included.
TEST_F(RouterTest, RequestsNoRouteTakesGoToTheFallback) {
  std::vector<HttpRequest> seen;
  router_.SetFallback([&seen](HttpRequest&& request, Responder respond) {
    seen.push_back(std::move(request));
    HttpResponse r;
    r.status = 299;
    respond(std::move(r));
  });
  router_.Add(
      "GET", "/v1/cases/{case_id}", [](HttpRequest&&, Responder) {},
      RouteOptions{{}, Role::kScorer});

  HttpRequest request;
  request.method = "PATCH";
  request.path = "/v1/elsewhere/x";
  request.query = "a=1&b=2";
  request.body = "payload";
  request.headers.emplace_back("authorization", "Bearer k");
  HttpResponse out;
  EXPECT_EQ(router_.Dispatch(std::move(request), [&out](HttpResponse r) { out = std::move(r); }),
            Router::kFallbackLabel);
  EXPECT_EQ(out.status, 299);
  // A path some route has, with a method none has there, would have been a 405.
  EXPECT_EQ(Dispatch(router_, "DELETE", "/v1/decisions").status, 299);

  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "PATCH");
  EXPECT_EQ(seen[0].path, "/v1/elsewhere/x");
  EXPECT_EQ(seen[0].query, "a=1&b=2");
  EXPECT_EQ(seen[0].body, "payload");
  EXPECT_EQ(seen[0].Header("authorization"), "Bearer k");
  EXPECT_TRUE(seen[0].auth.tenant.empty());
  EXPECT_TRUE(seen[0].path_params.empty());
  EXPECT_EQ(seen[1].method, "DELETE");

  EXPECT_EQ(Dispatch(router_, "POST", "/v1/decisions", "{}", "application/json").body, "decide");
  EXPECT_EQ(Dispatch(router_, "POST", "/v1/decisions", "{}", "text/plain").status, 415);
  EXPECT_EQ(Dispatch(router_, "GET", "/v1/cases/c1").status, 401);
  EXPECT_EQ(seen.size(), 2u);
}

// Accepts "Bearer good" as a scorer of bank-a; counts its calls.
class CountingAuthenticator final : public Authenticator {
 public:
  Result<AuthContext> Authenticate(std::string_view header) const override {
    ++calls;
    if (header != "Bearer good") return Status(StatusCode::kUnauthenticated, "bad key");
    AuthContext context;
    context.authenticated = true;
    context.tenant = "bank-a";
    context.principal = "k1";
    context.roles = static_cast<uint32_t>(Role::kScorer);
    return context;
  }
  mutable int calls = 0;
};

class RouterHeadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.SetAuthenticator(&auth_);
    router_.Add(
        "POST", "/v1/decisions",
        [this](HttpRequest&& request, Responder respond) {
          handled_tenant_ = request.auth.tenant;
          respond(HttpResponse{});
        },
        RouteOptions{{"application/json"}, Role::kScorer});
    router_.Add(
        "GET", "/v1/cases", [](HttpRequest&&, Responder) {}, RouteOptions{{}, Role::kAnalyst});
  }
  static HttpRequest Head(std::string method, std::string path, std::string key,
                          std::string content_type) {
    HttpRequest request;
    request.method = std::move(method);
    request.path = std::move(path);
    request.content_type = std::move(content_type);
    if (!key.empty()) request.headers.emplace_back("authorization", "Bearer " + key);
    return request;
  }
  CountingAuthenticator auth_;
  Router router_;
  std::string handled_tenant_;
};

// Without a good key the caller learns nothing of its request's other faults: the key is judged
// before the media type, from the head alone (the body has not been read) and in Dispatch.
TEST_F(RouterHeadTest, TheKeyIsJudgedBeforeTheMediaType) {
  for (const char* key : {"", "bad"}) {
    HttpRequest head = Head("POST", "/v1/decisions", key, "text/plain");
    Router::HeadCheck check = router_.CheckHead(head, /*has_body=*/true);
    ASSERT_TRUE(check.refusal.has_value()) << key;
    EXPECT_EQ(check.refusal->status, 401) << key;
    EXPECT_EQ(check.route, "/v1/decisions");

    HttpRequest whole = Head("POST", "/v1/decisions", key, "text/plain");
    whole.body = "a,b";
    HttpResponse out;
    router_.Dispatch(std::move(whole), [&out](HttpResponse r) { out = std::move(r); });
    EXPECT_EQ(out.status, 401) << key;
  }
  HttpRequest wrong_role = Head("GET", "/v1/cases", "good", "");
  EXPECT_EQ(router_.CheckHead(wrong_role, false).refusal->status, 403);
  HttpRequest keyed = Head("POST", "/v1/decisions", "good", "text/plain");
  EXPECT_EQ(router_.CheckHead(keyed, /*has_body=*/true).refusal->status, 415);
}

// A head that passed carries its caller into Dispatch, which does not authenticate it again.
TEST_F(RouterHeadTest, AHeadThatPassedIsNotAuthenticatedAgain) {
  HttpRequest request = Head("POST", "/v1/decisions", "good", "application/json");
  Router::HeadCheck check = router_.CheckHead(request, /*has_body=*/true);
  EXPECT_FALSE(check.refusal.has_value());
  EXPECT_TRUE(request.auth.authenticated);
  EXPECT_EQ(request.auth.tenant, "bank-a");
  EXPECT_EQ(auth_.calls, 1);
  request.body = "{}";
  router_.Dispatch(std::move(request), [](HttpResponse) {});
  EXPECT_EQ(auth_.calls, 1);
  EXPECT_EQ(handled_tenant_, "bank-a");
}

// A request no route takes passes the head check, for Dispatch to answer (404, 405, fallback).
TEST_F(RouterHeadTest, ARequestNoRouteTakesPassesTheHeadCheck) {
  HttpRequest request = Head("POST", "/v1/elsewhere", "", "text/plain");
  Router::HeadCheck check = router_.CheckHead(request, /*has_body=*/true);
  EXPECT_FALSE(check.refusal.has_value());
  EXPECT_EQ(check.route, "unmatched");
  EXPECT_EQ(auth_.calls, 0);
}

TEST(RouterRoutesTest, ListsEveryRouteWithItsRoles) {
  Router router;
  auto noop = [](HttpRequest&&, Responder) {};
  router.Add("GET", "/healthz", noop);
  router.Add("GET", "/v1/cases/{case_id}", noop, RouteOptions{{}, Role::kAnalyst});
  router.Add("GET", "/metrics", noop, RouteOptions{{}, Role::kAdmin | Role::kAuditor});
  EXPECT_EQ(router.Routes(),
            (std::vector<std::string>{"GET /healthz public", "GET /v1/cases/{case_id} analyst",
                                      "GET /metrics admin|auditor"}));
}

}  // namespace
}  // namespace verdict
