#include "api/http_server.h"

#include <array>
#include <atomic>
// Beast then speaks std::string_view, like the rest of the code.
#define BOOST_BEAST_USE_STD_STRING_VIEW
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "common/clock.h"

namespace verdict {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

constexpr size_t kMaxDrainBytes = 64 << 20;

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

struct ServerMetrics {
  MetricsRegistry* registry;
  Gauge* open_connections;
  Counter* refused_connections;

  void CountRequest(std::string_view route, int status, double seconds) const {
    std::string route_label(route);
    registry
        ->GetCounter("verdict_api_requests_total", "HTTP requests by route and status",
                     {{"route", route_label}, {"status", std::to_string(status)}})
        ->Increment();
    registry
        ->GetHistogram("verdict_api_request_duration_seconds",
                       "Time from a request fully read to its response handed to the socket",
                       LatencyBucketsSeconds(), {{"route", route_label}})
        ->Observe(seconds);
  }
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const Router& router, const HttpServerOptions& options,
          const ServerMetrics& metrics)
      : stream_(std::move(socket)), router_(router), options_(options), metrics_(metrics) {
    metrics_.open_connections->Add(1);
  }
  ~Session() { metrics_.open_connections->Add(-1); }

  void Start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

 private:
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    parser_->body_limit(options_.max_body_bytes);
    stream_.expires_after(std::chrono::milliseconds(options_.idle_timeout_ms));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    auto& header = parser_->get();
    if (auto length = parser_->content_length(); length && *length > options_.max_body_bytes) {
      return RespondError(413, "payload_too_large",
                          "body of " + std::to_string(*length) + " bytes exceeds the limit of " +
                              std::to_string(options_.max_body_bytes),
                          /*drain=*/true);
    }
    if (beast::iequals(header[http::field::expect], "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(std::chrono::milliseconds(options_.read_timeout_ms));
      net::async_write(stream_, net::buffer(kContinue),
                       [self = shared_from_this()](beast::error_code write_ec, size_t) {
                         if (write_ec) return self->Close();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(std::chrono::milliseconds(options_.read_timeout_ms));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->OnReadError(ec);
                       self->Dispatch();
                     });
  }

  void OnReadError(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset ||
        ec == net::error::eof) {
      return Close();
    }
    if (ec == http::error::header_limit) {
      return RespondError(
          431, "invalid_argument",
          "request headers exceed " + std::to_string(options_.max_header_bytes) + " bytes", false);
    }
    if (ec == http::error::body_limit) {
      return RespondError(
          413, "payload_too_large",
          "body exceeds the limit of " + std::to_string(options_.max_body_bytes) + " bytes", true);
    }
    RespondError(400, "invalid_argument", "malformed HTTP request: " + ec.message(), false);
  }

  void RespondError(int status, std::string_view code, const std::string& message, bool drain) {
    HttpResponse response = JsonErrorResponse(status, code, message);
    response.close = true;
    drain_after_close_ = drain;
    keep_alive_ = false;
    version_ = 11;
    metrics_.CountRequest("unmatched", status, 0);
    Write(std::move(response), "unmatched", SystemClock::Instance().MonotonicNanos());
  }

  void Dispatch() {
    http::request<http::string_body> raw = parser_->release();
    keep_alive_ = raw.keep_alive();
    version_ = raw.version();
    HttpRequest request;
    request.received_at_ns = SystemClock::Instance().MonotonicNanos();
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
    request.body = std::move(raw.body());
    stream_.expires_never();

    // The router records the matched pattern; the responder reads it when it runs, which may
    // be on this stack (synchronous handlers) or later on another thread.
    auto route = std::make_shared<std::string>("unmatched");
    const int64_t started = request.received_at_ns;
    auto self = shared_from_this();
    Responder respond = [self, route, started](HttpResponse response) {
      net::post(self->stream_.get_executor(),
                [self, route, started, response = std::move(response)]() mutable {
                  self->Write(std::move(response), *route, started);
                });
    };
    *route = std::string(router_.Dispatch(std::move(request), std::move(respond)));
  }

  void Write(HttpResponse response, const std::string& route, int64_t started_ns) {
    const double seconds =
        static_cast<double>(SystemClock::Instance().MonotonicNanos() - started_ns) * 1e-9;
    if (route != "unmatched" || response.status != 413) {
      metrics_.CountRequest(route, response.status, seconds);
    }
    auto out = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(response.status), version_);
    out->set(http::field::server, "verdict");
    out->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) out->set(name, value);
    out->body() = std::move(response.body);
    const bool close = response.close || !keep_alive_;
    out->keep_alive(!close);
    out->prepare_payload();
    stream_.expires_after(std::chrono::milliseconds(options_.read_timeout_ms));
    http::async_write(stream_, *out,
                      [self = shared_from_this(), out, close](beast::error_code ec, size_t) {
                        if (ec) return self->Close();
                        if (close) return self->ShutdownAfterError();
                        self->ReadHeader();
                      });
  }

  // After an error response the client may still be sending a body we refused; reading and
  // discarding it before closing keeps the kernel from resetting the connection, which would
  // make the client lose our response.
  void ShutdownAfterError() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (!drain_after_close_) return Close();
    stream_.expires_after(std::chrono::milliseconds(options_.read_timeout_ms));
    Drain();
  }

  void Drain() {
    stream_.async_read_some(net::buffer(drain_buffer_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kMaxDrainBytes) return self->Close();
                              self->Drain();
                            });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  const Router& router_;
  const HttpServerOptions& options_;
  const ServerMetrics& metrics_;
  bool keep_alive_ = true;
  unsigned version_ = 11;
  bool drain_after_close_ = false;
  size_t drained_ = 0;
  std::array<char, 16384> drain_buffer_{};
};

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  const Router& router;
  ServerMetrics metrics;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::vector<std::thread> threads;
  std::atomic<bool> stopped{false};

  Impl(const HttpServerOptions& opts, const Router& r, MetricsRegistry& registry)
      : options(opts), router(r) {
    metrics.registry = &registry;
    metrics.open_connections =
        registry.GetGauge("verdict_api_open_connections", "Open HTTP connections");
    metrics.refused_connections = registry.GetCounter("verdict_api_refused_connections_total",
                                                      "Connections closed at once over the cap");
  }

  void Accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        if (stopped.load()) return;
        return Accept();
      }
      if (metrics.open_connections->value() >= static_cast<double>(options.max_connections)) {
        metrics.refused_connections->Increment();
        beast::error_code ignored;
        socket.close(ignored);
      } else {
        socket.set_option(tcp::no_delay(true), ec);
        auto session = std::make_shared<Session>(std::move(socket), router, options, metrics);
        session->Start();
      }
      Accept();
    });
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Create(const HttpServerOptions& options,
                                                       const Router& router,
                                                       MetricsRegistry& metrics) {
  auto impl = std::make_unique<Impl>(options, router, metrics);
  beast::error_code ec;
  auto address = net::ip::make_address(options.address, ec);
  if (ec) {
    return InvalidArgument("listen address '" + options.address + "' is not an IP address",
                           "server.listen");
  }
  tcp::endpoint endpoint(address, options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Unavailable("cannot listen on " + options.address + ":" + std::to_string(options.port) +
                       ": " + ec.message());
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

uint16_t HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpServer::Start() {
  impl_->Accept();
  int n = std::max(1, impl_->options.io_threads);
  for (int i = 0; i < n; ++i) {
    impl_->threads.emplace_back([this] { impl_->ioc.run(); });
  }
}

void HttpServer::Stop() {
  if (impl_->stopped.exchange(true)) return;
  net::post(impl_->ioc, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
  });
  impl_->ioc.stop();
  for (auto& t : impl_->threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace verdict
