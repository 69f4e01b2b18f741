#include "api/router.h"

#include <algorithm>

#include "api/error_response.h"

namespace verdict {

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  if (path.empty() || path.front() != '/') return parts;
  path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

void Router::Add(std::string method, std::string pattern, HttpHandler handler,
                 RouteOptions options) {
  Route route;
  route.method = std::move(method);
  route.pattern = std::move(pattern);
  for (std::string_view part : SplitPath(route.pattern)) {
    Segment segment;
    if (!part.empty() && part.front() == '{') {
      size_t close = part.find('}');
      segment.capture = std::string(part.substr(1, close - 1));
      segment.literal = std::string(part.substr(close + 1));
    } else {
      segment.literal = std::string(part);
    }
    route.segments.push_back(std::move(segment));
  }
  route.handler = std::move(handler);
  route.options = std::move(options);
  routes_.push_back(std::move(route));
}

std::vector<std::string> Router::PublicRoutes() const {
  std::vector<std::string> out;
  for (const Route& route : routes_) {
    if (route.options.role == Role::kPublic) out.push_back(route.method + " " + route.pattern);
  }
  return out;
}

std::vector<std::string> Router::Routes() const {
  std::vector<std::string> out;
  for (const Route& route : routes_) {
    std::string roles;
    for (Role r : {Role::kScorer, Role::kAnalyst, Role::kAdmin, Role::kAuditor}) {
      if ((static_cast<uint32_t>(route.options.role) & static_cast<uint32_t>(r)) == 0) continue;
      if (!roles.empty()) roles += '|';
      roles += RoleName(r);
    }
    out.push_back(route.method + " " + route.pattern + " " + (roles.empty() ? "public" : roles));
  }
  return out;
}

bool Router::Match(const Route& route, const std::vector<std::string_view>& parts,
                   std::vector<std::pair<std::string, std::string>>* params) {
  if (parts.size() != route.segments.size()) return false;
  params->clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    const Segment& segment = route.segments[i];
    std::string_view part = parts[i];
    if (segment.capture.empty()) {
      if (part != segment.literal) return false;
      continue;
    }
    if (part.size() <= segment.literal.size() || !part.ends_with(segment.literal)) return false;
    params->emplace_back(segment.capture,
                         std::string(part.substr(0, part.size() - segment.literal.size())));
  }
  return true;
}

std::optional<HttpResponse> Router::Admit(const Route& route, HttpRequest& request,
                                          bool has_body) const {
  // The key first: a caller without a good one learns nothing from the other checks.
  if (route.options.role != Role::kPublic) {
    if (!request.auth.authenticated) {
      Result<AuthContext> auth =
          authenticator_ == nullptr
              ? Result<AuthContext>(Status(StatusCode::kUnauthenticated, "no authenticator"))
              : authenticator_->Authenticate(request.Header("authorization"));
      if (!auth.ok()) {
        HttpResponse response =
            ErrorResponse(Status(StatusCode::kUnauthenticated, auth.status().message()));
        response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"verdict\"");
        return response;
      }
      // A verified TLS client certificate names the principal; the key names tenant and roles.
      if (!request.auth.principal.empty()) auth->principal = request.auth.principal;
      request.auth = std::move(auth).value();
    }
    if (!request.auth.Has(route.options.role)) {
      return ErrorResponse(
          Status(StatusCode::kPermissionDenied, "this key lacks the role this route requires"));
    }
  }
  const auto& types = route.options.content_types;
  if (!types.empty() && has_body &&
      std::find(types.begin(), types.end(), request.content_type) == types.end()) {
    std::string message = "Content-Type '" + request.content_type + "' is not accepted here; use";
    for (const auto& t : types) message += " " + t;
    return ErrorResponse(UnsupportedMediaType(std::move(message), "Content-Type"));
  }
  return std::nullopt;
}

const Router::Route* Router::Find(const HttpRequest& request,
                                  std::vector<std::pair<std::string, std::string>>* params,
                                  const Route** path_match, std::string* allowed) const {
  const std::vector<std::string_view> parts = SplitPath(request.path);
  for (const Route& route : routes_) {
    if (!Match(route, parts, params)) continue;
    *path_match = &route;
    if (route.method == request.method) return &route;
    if (allowed->find(route.method) == std::string::npos) {
      *allowed += allowed->empty() ? route.method : ", " + route.method;
    }
  }
  return nullptr;
}

Router::HeadCheck Router::CheckHead(HttpRequest& request, bool has_body) const {
  std::vector<std::pair<std::string, std::string>> params;
  const Route* path_match = nullptr;
  std::string allowed;
  const Route* route = Find(request, &params, &path_match, &allowed);
  if (route == nullptr) return HeadCheck{"unmatched", std::nullopt};
  return HeadCheck{route->pattern, Admit(*route, request, has_body)};
}

std::string_view Router::Dispatch(HttpRequest&& request, Responder respond) const {
  std::vector<std::pair<std::string, std::string>> params;
  std::string allowed;
  const Route* path_match = nullptr;
  if (const Route* route = Find(request, &params, &path_match, &allowed)) {
    if (std::optional<HttpResponse> refusal = Admit(*route, request, !request.body.empty())) {
      respond(std::move(*refusal));
      return route->pattern;
    }
    if (gate_) {
      if (std::optional<HttpResponse> closed = gate_(request, route->pattern)) {
        respond(std::move(*closed));
        return route->pattern;
      }
    }
    request.path_params = std::move(params);
    route->handler(std::move(request), std::move(respond));
    return route->pattern;
  }
  if (fallback_) {
    fallback_(std::move(request), std::move(respond));
    return kFallbackLabel;
  }
  if (path_match != nullptr) {
    HttpResponse response = ErrorResponse(
        kHttpMethodNotAllowed,
        Status(StatusCode::kUnimplemented,
               request.method.substr(0, 16) + " is not allowed on " + request.path.substr(0, 200)));
    response.headers.emplace_back("Allow", allowed);
    respond(std::move(response));
    return path_match->pattern;
  }
  respond(ErrorResponse(NotFound("no route for " + request.path.substr(0, 200))));
  return "unmatched";
}

}  // namespace verdict
