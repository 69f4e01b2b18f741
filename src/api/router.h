// Router: maps (method, path) to a handler. Patterns are '/'-separated; a segment may be a
// literal ("decisions"), a capture ("{id}") or a capture with a literal suffix
// ("{version}:activate"). Routes are added before serving; afterwards the router is
// read-only and Dispatch is thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/auth_context.h"
#include "api/authenticator.h"
#include "api/http_message.h"

namespace verdict {

struct RouteOptions {
  // Media types a request body may have (lower-case). Empty: the route takes no body type
  // check. A request with a non-empty body of another type gets 415.
  std::vector<std::string> content_types;
  // The role a caller needs (api/auth_context.h). The authenticator checks it before the
  // handler runs; kPublic routes run without a key.
  Role role = Role::kPublic;
};

class Router {
 public:
  // Dispatch's metrics label for a request the fallback took.
  static constexpr std::string_view kFallbackLabel = "fallback";

  // Every non-public route is authenticated with `authenticator` (not owned; must outlive the
  // router) before its handler runs: 401 with WWW-Authenticate when the credential is missing
  // or bad, 403 when the caller lacks the route's role. Without one, non-public routes get 401.
  void SetAuthenticator(const Authenticator* authenticator) { authenticator_ = authenticator; }
  // "METHOD pattern" of every route open without a key (start-up log, tests).
  std::vector<std::string> PublicRoutes() const;
  // Every route as "METHOD pattern role" (role "public" or names joined by '|'), in the order
  // added: `verdict serve --list-routes` and the test of docs/api.yaml.
  std::vector<std::string> Routes() const;

  void Add(std::string method, std::string pattern, HttpHandler handler, RouteOptions options = {});
  // A request that no route takes (no route for its path, or none for its method there) goes
  // to `fallback` as it came, instead of the 404 or 405: a cluster node that does not own the
  // journal hands such requests to the owner, which authenticates them itself, so this router
  // checks no credential and no content type for them. Set before serving, like the routes.
  void SetFallback(HttpHandler fallback) { fallback_ = std::move(fallback); }
  // Asked before the handler of every route that admitted a request (the matched pattern): a
  // response answers the request instead (e.g. 503 while the data served cannot be vouched
  // for). Thread-safe as Dispatch is; set before serving, like the routes.
  using Gate = std::function<std::optional<HttpResponse>(const HttpRequest& request,
                                                         std::string_view route)>;
  void SetGate(Gate gate) { gate_ = std::move(gate); }

  // The checks Dispatch makes before a handler runs that need only a request's head, in this
  // order: the key and its role (401, 403), then the media type of a body (415). A connection
  // runs them once a header has come and before it reads the body (`has_body`: one follows), so
  // that a caller without a good key is answered from its headers alone, at the cost of a
  // header's read, and learns nothing about its request's other faults. Without a refusal,
  // `request.auth` then holds the caller (authenticated where the route needs a key) and
  // Dispatch does not authenticate it again. A request no route takes passes, for Dispatch to
  // answer or hand to the fallback.
  struct HeadCheck {
    std::string_view route;               // the matched pattern, or "unmatched"
    std::optional<HttpResponse> refusal;  // the answer instead of reading on; none: read on
  };
  HeadCheck CheckHead(HttpRequest& request, bool has_body) const;

  // Runs the matching handler, or the fallback, or responds 404 (no such path), 405 (path
  // exists, method does not; with an Allow header), 401, 403 or 415 itself. Returns the
  // matched pattern for metrics labels, kFallbackLabel, or "unmatched".
  std::string_view Dispatch(HttpRequest&& request, Responder respond) const;

 private:
  struct Segment {
    std::string literal;  // the literal, or the suffix after a capture
    std::string capture;  // non-empty for a capture segment
  };
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<Segment> segments;
    HttpHandler handler;
    RouteOptions options;
  };
  static bool Match(const Route& route, const std::vector<std::string_view>& parts,
                    std::vector<std::pair<std::string, std::string>>* params);
  // The route for the request's method and path, or null; *path_match is a route for the path
  // (any method) and *allowed lists the methods the path takes.
  const Route* Find(const HttpRequest& request,
                    std::vector<std::pair<std::string, std::string>>* params,
                    const Route** path_match, std::string* allowed) const;
  // The route's key, role and media type checks (CheckHead); the refusal, or none.
  std::optional<HttpResponse> Admit(const Route& route, HttpRequest& request, bool has_body) const;

  std::vector<Route> routes_;
  const Authenticator* authenticator_ = nullptr;
  HttpHandler fallback_;  // empty: unmatched requests get 404 or 405
  Gate gate_;             // empty: every admitted request reaches its handler
};

// Splits "/a/b/c" into {"a","b","c"}; a trailing slash yields a final empty segment.
std::vector<std::string_view> SplitPath(std::string_view path);

}  // namespace verdict
