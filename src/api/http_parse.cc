#include "api/http_parse.h"

#include <algorithm>
#include <cstdint>

#include "api/error_response.h"

namespace verdict {
namespace http_internal {
namespace {

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

HttpRequest ToHttpRequest(http::request<http::string_body>&& raw) {
  HttpRequest request = ToHttpRequestHead(raw);
  request.body = std::move(raw.body());
  return request;
}

HttpRequest ToHttpRequestHead(const http::request<http::string_body>& raw) {
  HttpRequest request;
  request.method = std::string(raw.method_string());
  std::string_view target = raw.target();
  size_t q = target.find('?');
  request.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
  for (const auto& field : raw) {
    request.headers.emplace_back(ToLower(field.name_string()), std::string(field.value()));
  }
  std::string_view content_type = raw[http::field::content_type];
  size_t semicolon = content_type.find(';');
  request.content_type = ToLower(Trim(content_type.substr(0, semicolon)));
  if (semicolon != std::string_view::npos) {
    request.content_type_params = std::string(Trim(content_type.substr(semicolon + 1)));
  }
  return request;
}

size_t PutAvailable(RequestParser& parser, std::string_view bytes, bool through_body,
                    size_t max_pending, beast::error_code& ec) {
  const bool header_was_done = parser.is_header_done();
  size_t used = 0;
  while (used < bytes.size() && !parser.is_done() && (through_body || !parser.is_header_done())) {
    const size_t n = parser.put(net::buffer(bytes.data() + used, bytes.size() - used), ec);
    used += n;
    if (!header_was_done && parser.is_header_done() && !parser.chunked() &&
        parser.get().count(http::field::transfer_encoding) != 0) {
      ec = http::error::bad_transfer_encoding;
      return used;
    }
    if (ec == http::error::need_more) {
      ec = {};
      break;
    }
    if (ec || n == 0) break;
  }
  if (!ec && through_body && parser.is_header_done() && !parser.is_done() &&
      bytes.size() - used > max_pending) {
    ec = http::error::header_limit;
  }
  return used;
}

ReadFailure ClassifyReadError(beast::error_code ec, const HttpServerOptions& options) {
  if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
      ec == net::error::operation_aborted || ec == net::error::connection_reset ||
      ec == net::error::eof || ec == ssl::error::stream_truncated ||
      ec.category() == net::error::get_ssl_category()) {
    return {};
  }
  if (ec == http::error::header_limit) {
    return {431,
            "request headers (or a chunk's size line, or the trailer) exceed " +
                std::to_string(options.max_header_bytes) + " bytes",
            false};
  }
  if (ec == http::error::bad_transfer_encoding) {
    return {400, "Transfer-Encoding must end with chunked (RFC 9112 §6.3)", false};
  }
  if (ec == http::error::body_limit) {
    return {413, "body exceeds the limit of " + std::to_string(options.max_body_bytes) + " bytes",
            true};
  }
  return {400, "malformed HTTP request: " + ec.message(), false};
}

// The answer to a read that failed with a status: 413 and 431 are HTTP's own answers, the rest
// an invalid request.
HttpResponse ReadFailureResponse(const ReadFailure& failure) {
  switch (failure.status) {
    case 413:
      return ErrorResponse(InputTooLarge(failure.message));
    case 431:
      return ErrorResponse(kHttpHeaderFieldsTooLarge, InputTooLarge(failure.message));
    default:
      return ErrorResponse(InvalidArgument(failure.message));
  }
}

}  // namespace http_internal

using http_internal::ClassifyReadError;
using http_internal::PutAvailable;
using http_internal::ReadFailure;
using http_internal::RequestParser;
using http_internal::ToHttpRequest;
namespace beast = http_internal::beast;
namespace http = http_internal::http;

std::string SerializeHttpResponse(const HttpResponse& response, unsigned version, bool close) {
  const std::string_view reason = http::obsolete_reason(static_cast<http::status>(response.status));
  std::string out;
  out.reserve(160 + response.content_type.size() + response.body.size());
  out.append(version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
  out.append(std::to_string(response.status)).append(" ").append(reason);
  out.append("\r\nServer: verdict\r\nContent-Type: ").append(response.content_type);
  for (const auto& [name, value] : response.headers) {
    out.append("\r\n").append(name).append(": ").append(value);
  }
  out.append("\r\nContent-Length: ").append(std::to_string(response.body.size()));
  // HTTP/1.1 keeps a connection unless told otherwise; HTTP/1.0 closes it unless told.
  if (version == 10 && !close) out.append("\r\nConnection: keep-alive");
  if (version != 10 && close) out.append("\r\nConnection: close");
  out.append("\r\n\r\n").append(response.body);
  return out;
}

ParsedHttpRequest ParseHttpRequest(std::string_view bytes, const HttpServerOptions& options,
                                   size_t piece_bytes) {
  ParsedHttpRequest out;
  RequestParser parser;
  parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
  parser.body_limit(options.max_body_bytes);
  beast::error_code ec;
  size_t used = 0;
  size_t arrived = 0;
  // As a connection reads: a piece arrives, then everything buffered and unused is parsed.
  while (!parser.is_done() && !ec && arrived < bytes.size()) {
    arrived += std::min(std::max<size_t>(piece_bytes, 1), bytes.size() - arrived);
    used += PutAvailable(parser, bytes.substr(used, arrived - used), /*through_body=*/true,
                         options.max_header_bytes, ec);
  }
  out.consumed = used;
  if (ec) {
    ReadFailure failure = ClassifyReadError(ec, options);
    out.error_status = failure.status == 0 ? 400 : failure.status;
    out.error_message = failure.message;
    return out;
  }
  if (!parser.is_done()) return out;
  out.complete = true;
  out.request = ToHttpRequest(parser.release());
  return out;
}

}  // namespace verdict
