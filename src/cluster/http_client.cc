#include "cluster/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <string>

namespace verdict::cluster {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

Result<HttpEndpoint> ParseHttpEndpoint(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return InvalidArgument("URL must start with http://: " + std::string(url), "url");
  }
  std::string_view rest = url.substr(kScheme.size());
  rest = rest.substr(0, rest.find('/'));
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size()) {
    return InvalidArgument("URL must name host and port: " + std::string(url), "url");
  }
  std::string_view host = rest.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string_view port = rest.substr(colon + 1);
  for (char c : port) {
    if (c < '0' || c > '9') {
      return InvalidArgument("URL port must be a number: " + std::string(url), "url");
    }
  }
  return HttpEndpoint{std::string(host), std::string(port)};
}

struct HttpClient::Connection {
  asio::io_context io;
  beast::tcp_stream stream{io};
  beast::flat_buffer buffer;
};

HttpClient::HttpClient(HttpEndpoint endpoint, std::chrono::milliseconds timeout)
    : endpoint_(std::move(endpoint)), timeout_(timeout) {}

HttpClient::~HttpClient() = default;

namespace {

// Runs one asynchronous step to completion on the connection's own io_context. Beast's stream
// timeouts (expires_after) apply only to asynchronous operations, so every step is one.
template <typename Start>
beast::error_code RunStep(asio::io_context& io, Start&& start) {
  beast::error_code result = asio::error::would_block;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  io.restart();
  io.run();
  return result;
}

}  // namespace

Result<HttpAnswer> HttpClient::PostJson(std::string_view path, std::string_view body) {
  // A kept-alive connection the server has closed in the meantime fails on first use: one
  // retry on a new connection covers that. (A resent request may then run twice: the callers'
  // writes are compare-then-put transactions, which a second run leaves unchanged.)
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool reused = connection_ != nullptr;
    Result<HttpAnswer> answer = Exchange(path, body);
    if (answer.ok() || !reused) return answer;
  }
  return Unavailable("http://" + endpoint_.host + ":" + endpoint_.port + " unreachable");
}

Result<HttpAnswer> HttpClient::Exchange(std::string_view path, std::string_view body) {
  const auto fail = [&](std::string_view step, const beast::error_code& ec) {
    connection_.reset();
    return Unavailable("http://" + endpoint_.host + ":" + endpoint_.port + std::string(path) +
                       ": " + std::string(step) + ": " + ec.message());
  };
  if (!connection_) {
    auto connection = std::make_unique<Connection>();
    asio::ip::tcp::resolver resolver(connection->io);
    beast::error_code ec;
    const auto addresses = resolver.resolve(endpoint_.host, endpoint_.port, ec);
    if (ec) return fail("resolve", ec);
    connection->stream.expires_after(timeout_);
    ec = RunStep(connection->io,
                 [&](auto done) { connection->stream.async_connect(addresses, std::move(done)); });
    if (ec) return fail("connect", ec);
    connection_ = std::move(connection);
  }
  http::request<http::string_body> request{http::verb::post, std::string(path), 11};
  request.set(http::field::host, endpoint_.host);
  request.set(http::field::content_type, "application/json");
  request.keep_alive(true);
  request.body() = std::string(body);
  request.prepare_payload();
  Connection& c = *connection_;
  c.stream.expires_after(timeout_);
  beast::error_code ec =
      RunStep(c.io, [&](auto done) { http::async_write(c.stream, request, std::move(done)); });
  if (ec) return fail("send", ec);
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  ec = RunStep(c.io,
               [&](auto done) { http::async_read(c.stream, c.buffer, parser, std::move(done)); });
  if (ec) return fail("answer", ec);
  auto response = parser.release();
  HttpAnswer answer{static_cast<int>(response.result_int()), std::move(response.body())};
  if (!response.keep_alive()) connection_.reset();
  return answer;
}

}  // namespace verdict::cluster
