// HttpRequest/HttpResponse: the server's plain view of one exchange, so that route handlers
// never see Boost.Beast. Value types; a request belongs to its handler, a response to the
// Responder it is passed to.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/auth_context.h"

namespace verdict {

struct HttpRequest {
  std::string method;               // upper-case, e.g. "POST"
  std::string path;                 // without the query, e.g. "/v1/decisions"
  std::string query;                // after '?', undecoded; empty when none
  std::string content_type;         // the media type alone, lower-case, e.g. "application/json"
  std::string content_type_params;  // what followed ';' in Content-Type, trimmed
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-case
  std::string body;
  // Filled by the router from `{name}` segments of the matched pattern.
  std::vector<std::pair<std::string, std::string>> path_params;
  int64_t received_at_ns = 0;  // monotonic time when the whole request had been read
  // Set by the authenticator before dispatch; unauthenticated until then.
  AuthContext auth;

  std::string_view Header(std::string_view lower_name) const;
  std::string_view PathParam(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Close the connection after this response (set for errors that leave the stream unusable).
  bool close = false;
  // Read nothing more from this connection for about this long once the response is written
  // (capped by HttpServerOptions::max_read_pause_ms, then drawn from [half, all] of it so that
  // connections refused together do not come back together): backpressure on a client that was told
  // to retry later, so that a flooding tenant's next requests wait in its own socket instead
  // of costing the server a refusal each. 0: read on at once.
  int64_t pause_reading_ms = 0;
};

// Completes a request. Call exactly once, from any thread; the server serializes the write.
using Responder = std::function<void(HttpResponse)>;
using HttpHandler = std::function<void(HttpRequest&&, Responder)>;

}  // namespace verdict
