#include "webhooks/https_webhook_sender.h"

#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <utility>

namespace verdict::webhooks {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}

bool IsIpLiteral(const std::string& host) {
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

class HttpsWebhookSender final : public WebhookSender {
 public:
  HttpsWebhookSender(HttpsUrl url, ssl::context context)
      : url_(std::move(url)), context_(std::move(context)) {}

  Result<int> Post(const std::vector<std::pair<std::string, std::string>>& headers,
                   std::string_view body, std::chrono::milliseconds timeout) override {
    const Clock::time_point deadline = Clock::now() + timeout;
    // A kept-alive connection the server has since closed fails at once: one more attempt on a
    // fresh connection (deliveries are at least once anyway; the receiver deduplicates).
    for (int attempt = 0;; ++attempt) {
      const bool fresh = stream_ == nullptr;
      if (fresh) VERDICT_RETURN_IF_ERROR(Connect(deadline));
      Result<int> status = Exchange(headers, body, deadline);
      if (status.ok()) return status;
      stream_.reset();
      if (fresh || attempt > 0 || Clock::now() >= deadline) return status;
    }
  }

 private:
  using Stream = beast::ssl_stream<beast::tcp_stream>;

  // Runs the io_context until the operation started before it completes.
  void RunOnce() {
    io_.restart();
    io_.run();
  }

  Status Connect(Clock::time_point deadline) {
    tcp::resolver resolver(io_);
    boost::system::error_code ec;
    const tcp::resolver::results_type addresses = resolver.resolve(url_.host, url_.port, ec);
    if (ec) return Unavailable("https webhook: cannot resolve " + url_.host + ": " + ec.message());
    auto stream = std::make_unique<Stream>(io_, context_);
    if (!IsIpLiteral(url_.host) &&
        SSL_set_tlsext_host_name(stream->native_handle(), url_.host.c_str()) != 1) {
      return Unavailable("https webhook: cannot set the server name " + url_.host);
    }
    stream->set_verify_mode(ssl::verify_peer);
    stream->set_verify_callback(ssl::host_name_verification(url_.host));
    beast::get_lowest_layer(*stream).expires_at(deadline);
    beast::get_lowest_layer(*stream).async_connect(
        addresses, [&ec](boost::system::error_code e, const tcp::endpoint&) { ec = e; });
    RunOnce();
    if (ec) {
      return Unavailable("https webhook: cannot connect to " + url_.host + ":" + url_.port + ": " +
                         ec.message());
    }
    stream->async_handshake(ssl::stream_base::client,
                            [&ec](boost::system::error_code e) { ec = e; });
    RunOnce();
    if (ec) {
      return Unavailable("https webhook: TLS handshake with " + url_.host +
                         " failed: " + ec.message());
    }
    stream_ = std::move(stream);
    return Status::Ok();
  }

  Result<int> Exchange(const std::vector<std::pair<std::string, std::string>>& headers,
                       std::string_view body, Clock::time_point deadline) {
    http::request<http::string_body> request{http::verb::post, url_.target, 11};
    request.set(http::field::host, url_.host);
    for (const auto& [name, value] : headers) request.insert(name, value);
    request.body() = std::string(body);
    request.keep_alive(true);
    request.prepare_payload();
    beast::get_lowest_layer(*stream_).expires_at(deadline);
    boost::system::error_code ec;
    http::async_write(*stream_, request, [&ec](boost::system::error_code e, size_t) { ec = e; });
    RunOnce();
    if (ec) return Unavailable("https webhook: send to " + url_.host + ": " + ec.message());
    http::response<http::string_body> response;
    buffer_.clear();
    http::async_read(*stream_, buffer_, response,
                     [&ec](boost::system::error_code e, size_t) { ec = e; });
    RunOnce();
    if (ec) return Unavailable("https webhook: answer from " + url_.host + ": " + ec.message());
    const int status = response.result_int();
    if (!response.keep_alive()) stream_.reset();
    return status;
  }

  const HttpsUrl url_;
  ssl::context context_;
  asio::io_context io_;
  std::unique_ptr<Stream> stream_;
  beast::flat_buffer buffer_;
};

}  // namespace

Result<HttpsUrl> ParseHttpsUrl(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return InvalidArgument("URL must start with https://: " + std::string(url), "url");
  }
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  HttpsUrl parsed;
  parsed.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  std::string_view authority = rest.substr(0, slash);
  // "[v6]:port", "[v6]", "host:port" or "host".
  const size_t bracket = authority.rfind(']');
  const size_t colon = authority.rfind(':');
  const bool has_port =
      colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket);
  std::string_view host = has_port ? authority.substr(0, colon) : authority;
  parsed.port = has_port ? std::string(authority.substr(colon + 1)) : "443";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty() || parsed.port.empty() || host.find('@') != std::string_view::npos) {
    return InvalidArgument("URL must name a host: " + std::string(url), "url");
  }
  for (char c : parsed.port) {
    if (c < '0' || c > '9') {
      return InvalidArgument("URL port must be a number: " + std::string(url), "url");
    }
  }
  parsed.host = std::string(host);
  return parsed;
}

Result<std::unique_ptr<WebhookSender>> MakeHttpsWebhookSender(std::string_view url,
                                                              const std::string& ca_file) {
  VERDICT_ASSIGN_OR_RETURN(HttpsUrl parsed, ParseHttpsUrl(url));
  ssl::context context(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION);
  boost::system::error_code ec;
  if (ca_file.empty()) {
    context.set_default_verify_paths(ec);
    if (ec) return Unavailable("https webhook: the system's trusted store: " + ec.message());
  } else {
    context.load_verify_file(ca_file, ec);
    if (ec) {
      return InvalidArgument("ca_file: cannot load '" + ca_file + "': " + ec.message(), "ca_file");
    }
  }
  return std::unique_ptr<WebhookSender>(
      std::make_unique<HttpsWebhookSender>(std::move(parsed), std::move(context)));
}

}  // namespace verdict::webhooks
