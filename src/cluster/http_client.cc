#include "cluster/http_client.h"

#include <poll.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
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

std::string_view HttpAnswer::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return {};
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
// timeouts (expires_at) apply only to asynchronous operations, so every step is one.
template <typename Start>
beast::error_code RunStep(asio::io_context& io, Start&& start) {
  beast::error_code result = asio::error::would_block;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  io.restart();
  io.run();
  return result;
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Headers that frame the message on this connection; the client writes its own.
bool IsFramingHeader(std::string_view lower_name) {
  return lower_name == "host" || lower_name == "content-length" ||
         lower_name == "transfer-encoding" || lower_name == "connection";
}

// An idle kept-alive connection has nothing to read. Something to read (the end of the stream,
// an error, bytes nobody asked for) means the server closed it or broke it: using it would fail.
bool ClosedByServer(beast::tcp_stream& stream) {
  pollfd fd{};
  fd.fd = stream.socket().native_handle();
  fd.events = POLLIN;
  return ::poll(&fd, 1, 0) != 0;
}

}  // namespace

Result<HttpAnswer> HttpClient::PostJson(std::string_view path, std::string_view body) {
  HttpCall call;
  call.method = "POST";
  call.target = std::string(path);
  call.headers.emplace_back("content-type", "application/json");
  call.body = std::string(body);
  call.may_resend = true;
  return Call(call);
}

Result<HttpAnswer> HttpClient::Call(const HttpCall& call) {
  const auto deadline =
      std::chrono::steady_clock::now() + (call.timeout.count() > 0 ? call.timeout : timeout_);
  // The server may close a kept-alive connection between the check in Connect and the send: the
  // exchange then fails on the reused connection, and a second attempt on a new one covers that.
  for (int attempt = 0;; ++attempt) {
    bool reused = false;
    const Status connected = Connect(deadline, &reused);
    if (!connected.ok()) return connected;
    Sent sent = Sent::kNothing;
    Result<HttpAnswer> answer = Exchange(call, deadline, &sent);
    if (answer.ok() || !reused || attempt > 0) return answer;
    if (sent == Sent::kAll && !call.may_resend) return answer;
  }
}

Status HttpClient::Fail(std::string_view target, std::string_view step, const std::string& error) {
  connection_.reset();
  return Unavailable("http://" + endpoint_.host + ":" + endpoint_.port +
                     std::string(target.substr(0, 200)) + ": " + std::string(step) + ": " + error);
}

Status HttpClient::Connect(std::chrono::steady_clock::time_point deadline, bool* reused) {
  if (connection_ && ClosedByServer(connection_->stream)) connection_.reset();
  *reused = connection_ != nullptr;
  if (connection_) return Status();
  auto connection = std::make_unique<Connection>();
  asio::ip::tcp::resolver resolver(connection->io);
  beast::error_code ec;
  const auto addresses = resolver.resolve(endpoint_.host, endpoint_.port, ec);
  if (ec) return Fail("", "resolve", ec.message());
  connection->stream.expires_at(deadline);
  ec = RunStep(connection->io,
               [&](auto done) { connection->stream.async_connect(addresses, std::move(done)); });
  if (ec) return Fail("", "connect", ec.message());
  connection_ = std::move(connection);
  return Status();
}

Result<HttpAnswer> HttpClient::Exchange(const HttpCall& call,
                                        std::chrono::steady_clock::time_point deadline,
                                        Sent* sent) {
  http::request<http::string_body> request;
  request.method_string(call.method);
  request.target(call.target);
  request.version(11);
  for (const auto& [name, value] : call.headers) {
    if (!IsFramingHeader(ToLower(name))) request.insert(name, value);
  }
  const bool v6 = endpoint_.host.find(':') != std::string::npos;
  request.set(http::field::host,
              (v6 ? "[" + endpoint_.host + "]" : endpoint_.host) + ":" + endpoint_.port);
  request.keep_alive(true);
  request.body() = call.body;
  request.prepare_payload();

  Connection& c = *connection_;
  c.stream.expires_at(deadline);
  beast::error_code ec =
      RunStep(c.io, [&](auto done) { http::async_write(c.stream, request, std::move(done)); });
  if (ec) return Fail(call.target, "send", ec.message());
  *sent = Sent::kAll;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  // The answer to HEAD announces a body it does not carry.
  if (call.method == "HEAD") parser.skip(true);
  ec = RunStep(c.io,
               [&](auto done) { http::async_read(c.stream, c.buffer, parser, std::move(done)); });
  if (ec) return Fail(call.target, "answer", ec.message());
  auto response = parser.release();
  HttpAnswer answer;
  answer.status = static_cast<int>(response.result_int());
  for (const auto& field : response) {
    answer.headers.emplace_back(ToLower(field.name_string()), std::string(field.value()));
  }
  answer.body = std::move(response.body());
  // Bytes after the answer were asked for by nobody (e.g. a body sent after all with the
  // answer to HEAD): the next answer could not be told from them.
  if (!response.keep_alive() || c.buffer.size() != 0) connection_.reset();
  return answer;
}

}  // namespace verdict::cluster
