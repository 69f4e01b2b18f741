// Reading HTTP/1.1 requests (internal to src/api): Beast's parser fed from a connection's
// buffer, the limits Beast does not check itself, read errors turned into answers, and Beast's
// request turned into the handlers' HttpRequest. Stateless functions; a parser belongs to its
// connection. ParseHttpRequest and SerializeHttpResponse (api/http_server.h) are built on them.
#pragma once

#include <string>
#include <string_view>

#include "api/http_beast.h"
#include "api/http_message.h"
#include "api/http_server.h"

namespace verdict::http_internal {

using RequestParser = http::request_parser<http::string_body>;

// Beast's request -> the handlers' HttpRequest (everything but received_at_ns and auth).
HttpRequest ToHttpRequest(http::request<http::string_body>&& raw);
// The same without the body: what is known once the header has come.
HttpRequest ToHttpRequestHead(const http::request<http::string_body>& raw);

// How a failed read ends the connection: quietly (status 0: the peer left, timed out, or broke
// TLS, so nothing can or should be answered) or with an error response.
struct ReadFailure {
  int status = 0;
  std::string message;
  bool drain = false;  // the peer may still be sending a body we refused
};

// Feeds `bytes` to `parser`, up to the end of the header (through_body false) or of the whole
// request, and returns how many it used. need_more is not an error: the caller comes back with
// the unused bytes and more, never with the same bytes alone (Beast's parser asserts on that,
// e.g. on an empty chunked body whose last CRLF has not come yet).
// Two things Beast 1.74 lets through are errors here:
// - a Transfer-Encoding whose last coding is not chunked: RFC 9112 §6.3 leaves no way to find
//   the body's end, and reading it as no body would take the body for the next request
//   (bad_transfer_encoding, 400);
// - more than `max_pending` bytes the parser will not take while it waits for the end of a
//   chunk's size line or of the trailer: it checks no limit on those, so a client could grow the
//   connection's buffer until the read deadline (header_limit, 431).
size_t PutAvailable(RequestParser& parser, std::string_view bytes, bool through_body,
                    size_t max_pending, beast::error_code& ec);

ReadFailure ClassifyReadError(beast::error_code ec, const HttpServerOptions& options);

// The answer to a read that failed with a status: 413 and 431 are HTTP's own answers, the rest
// an invalid request.
HttpResponse ReadFailureResponse(const ReadFailure& failure);

}  // namespace verdict::http_internal
