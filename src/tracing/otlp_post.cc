#include "tracing/otlp_post.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <exception>

namespace verdict::tracing {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

// The steps of one exchange, each started by the previous one's completion; all run on the
// caller's thread inside io_context::run_for.
struct Exchange {
  // One exchange from start to end on a fresh io_context; may throw.
  static Status Run(const OtlpEndpoint& endpoint, const std::string& body,
                    std::chrono::milliseconds timeout);

  Exchange(net::io_context& io, const OtlpEndpoint& endpoint, const std::string& body)
      : resolver(io), stream(io), endpoint(endpoint) {
    request.method(http::verb::post);
    request.target(endpoint.target);
    request.version(11);
    request.set(http::field::host, endpoint.host + ":" + endpoint.port);
    request.set(http::field::content_type, "application/json");
    request.set(http::field::connection, "close");
    request.body() = body;
    request.prepare_payload();
  }

  void Start(std::chrono::milliseconds timeout) {
    stream.expires_after(timeout);
    resolver.async_resolve(endpoint.host, endpoint.port,
                           [this](beast::error_code ec, const tcp::resolver::results_type& found) {
                             if (ec) return Finish(ec, "resolve");
                             stream.async_connect(
                                 found, [this](beast::error_code ec, const tcp::endpoint&) {
                                   if (ec) return Finish(ec, "connect");
                                   Send();
                                 });
                           });
  }

  void Send() {
    http::async_write(stream, request, [this](beast::error_code ec, size_t) {
      if (ec) return Finish(ec, "write");
      http::async_read(stream, buffer, response,
                       [this](beast::error_code ec, size_t) { Finish(ec, "read"); });
    });
  }

  void Finish(beast::error_code ec, const char* step) {
    done = true;
    if (ec) {
      error = std::string(step) + ": " + ec.message();
    } else if (response.result_int() / 100 != 2) {
      error = "the collector answered HTTP " + std::to_string(response.result_int());
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  tcp::resolver resolver;
  beast::tcp_stream stream;
  const OtlpEndpoint& endpoint;
  http::request<http::string_body> request;
  http::response<http::string_body> response;
  beast::flat_buffer buffer;
  bool done = false;
  std::string error;
};

}  // namespace

Status PostOtlpJson(const OtlpEndpoint& endpoint, const std::string& body,
                    std::chrono::milliseconds timeout) {
  // Asio and Beast report some failures by throwing (allocation, a field too large); the
  // exporter's thread must never end the process over a span.
  try {
    return Exchange::Run(endpoint, body, timeout);
  } catch (const std::exception& e) {
    return Status(StatusCode::kUnavailable, std::string("OTLP export failed: ") + e.what());
  }
}

Status Exchange::Run(const OtlpEndpoint& endpoint, const std::string& body,
                     std::chrono::milliseconds timeout) {
  net::io_context io;
  Exchange exchange(io, endpoint, body);
  exchange.Start(timeout);
  // The stream's expiry bounds connect, write and read; run_for bounds name resolution too.
  io.run_for(timeout);
  if (!exchange.done) {
    // Abort what is still pending and let its handlers run (with operation_aborted) before the
    // exchange they refer to goes away.
    exchange.resolver.cancel();
    exchange.stream.cancel();
    io.restart();
    io.run();
    return Status(StatusCode::kUnavailable,
                  "OTLP export to " + endpoint.host + ":" + endpoint.port + " timed out");
  }
  if (!exchange.error.empty()) {
    return Status(StatusCode::kUnavailable,
                  "OTLP export to " + endpoint.host + ":" + endpoint.port + ": " + exchange.error);
  }
  return Status::Ok();
}

}  // namespace verdict::tracing
