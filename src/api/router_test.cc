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
