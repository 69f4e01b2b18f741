#include "api/http_server.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <type_traits>
// Beast then speaks std::string_view, like the rest of the code.
#include <boost/version.hpp>
#if BOOST_VERSION < 108600 && !defined(BOOST_DISABLE_ASSERTS)
// Beast before Boost 1.86 asserts that a final chunk's header is re-parsed with at least 5
// bytes where 3 are valid (boostorg/beast#2861): a client sending an empty chunked body in
// pieces ("0\r\n", then "\r", "\n") would abort a sanitizer or debug build of the server. The
// code after the check handles it; release builds (NDEBUG) never had the check. Boost's
// assertions are off in this file for those versions.
#define BOOST_DISABLE_ASSERTS
#endif
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "api/connection_deadlines.h"
#include "api/error_response.h"
#include "common/clock.h"
#include "common/event_loop.h"
#include "common/tenant_map.h"

namespace verdict {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

constexpr size_t kMaxDrainBytes = 64 << 20;
// What one read for the first bytes of a request asks for (each idle connection holds this
// much), and each read for the rest of one (a body of megabytes takes fewer reads).
constexpr size_t kFirstReadBytes = 16 << 10;
constexpr size_t kReadBytes = 64 << 10;

// TLS 1.2: forward secrecy (ECDHE) and AEAD only, the strongest first. TLS 1.3 suites are all
// AEAD with forward secrecy; OpenSSL's defaults are kept, named here so they are on record.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256";
constexpr const char* kTls13Suites =
    "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256";
constexpr const char* kGroups = "X25519:P-256:P-384";

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

// Beast's request -> the handlers' HttpRequest (everything but received_at_ns and auth).
HttpRequest ToHttpRequest(http::request<http::string_body>&& raw) {
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
  request.body = std::move(raw.body());
  return request;
}

// Adds `by` to the calling thread's nice value (at most 19). Raising one's own nice value needs
// no privilege; a failure leaves the thread at the process's priority: logged, not fatal.
void LowerOwnPriority(int by) {
  const auto tid = static_cast<id_t>(gettid());
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno != 0 || setpriority(PRIO_PROCESS, tid, std::min(19, now + by)) != 0) {
    spdlog::warn("server.io_thread_nice: cannot lower the I/O thread's priority: {}",
                 std::strerror(errno));
  }
}

// A read pause drawn from [pause_ms / 2, pause_ms]: connections refused together (a flooding
// tenant's) would otherwise all come back at the same moment, as a burst.
int64_t SpreadPause(int64_t pause_ms) {
  if (pause_ms <= 1) return pause_ms;
  thread_local std::minstd_rand random(std::random_device{}());
  return std::uniform_int_distribution<int64_t>(pause_ms / 2, pause_ms)(random);
}

// How a failed read ends the connection: quietly (status 0: the peer left, timed out, or broke
// TLS, so nothing can or should be answered) or with an error response.
struct ReadFailure {
  int status = 0;
  std::string message;
  bool drain = false;  // the peer may still be sending a body we refused
};

using RequestParser = http::request_parser<http::string_body>;

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

// The subject of the client certificate that the handshake verified, as an RFC 4514 string
// (UTF-8 kept, control characters escaped); empty when the client sent none.
std::string VerifiedPeerSubject(SSL* ssl) {
  X509* cert = SSL_get0_peer_certificate(ssl);  // not owned
  if (cert == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return {};
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return {};
  std::string subject;
  if (X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0,
                         XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) >= 0) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    if (n > 0 && data != nullptr) subject.assign(data, static_cast<size_t>(n));
  }
  BIO_free(bio);
  return subject;
}

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    std::array<char, 256> text{};
    ERR_error_string_n(e, text.data(), text.size());
    if (!out.empty()) out += "; ";
    out += text.data();
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

Result<std::unique_ptr<ssl::context>> MakeTlsContext(const TlsOptions& tls) {
  if (tls.key_file.empty()) {
    return InvalidArgument("server.tls.key_file is required with server.tls.cert_file",
                           "server.tls.key_file");
  }
  if (tls.min_version != "1.2" && tls.min_version != "1.3") {
    return InvalidArgument("server.tls.min_version must be \"1.2\" or \"1.3\"",
                           "server.tls.min_version");
  }
  if (tls.client_cert != TlsOptions::ClientCert::kOff && tls.client_ca_file.empty()) {
    return InvalidArgument("server.tls.client_ca_file is required when client_cert is not \"off\"",
                           "server.tls.client_ca_file");
  }
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  ERR_clear_error();
  auto fail = [](std::string what, std::string key) {
    return InvalidArgument(what + ": " + OpenSslErrors(), std::move(key));
  };
  if (SSL_CTX_set_min_proto_version(
          native, tls.min_version == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1 ||
      SSL_CTX_set_ciphersuites(native, kTls13Suites) != 1 ||
      SSL_CTX_set1_groups_list(native, kGroups) != 1) {
    return fail("cannot restrict TLS versions and ciphers", "server.tls.min_version");
  }
  SSL_CTX_set_options(
      native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(native, tls.cert_file.c_str()) != 1) {
    return fail("cannot load the certificate chain '" + tls.cert_file + "'",
                "server.tls.cert_file");
  }
  if (SSL_CTX_use_PrivateKey_file(native, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return fail("cannot load the private key '" + tls.key_file + "'", "server.tls.key_file");
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return fail("the private key '" + tls.key_file + "' does not match '" + tls.cert_file + "'",
                "server.tls.key_file");
  }
  if (tls.client_cert != TlsOptions::ClientCert::kOff) {
    if (SSL_CTX_load_verify_locations(native, tls.client_ca_file.c_str(), nullptr) != 1) {
      return fail("cannot load the client CA file '" + tls.client_ca_file + "'",
                  "server.tls.client_ca_file");
    }
    // The CA names sent in the CertificateRequest, so a client can pick the right certificate.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca_file.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(native, names);
    int mode = SSL_VERIFY_PEER;
    if (tls.client_cert == TlsOptions::ClientCert::kRequire) {
      mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    }
    SSL_CTX_set_verify(native, mode, nullptr);
    // Resumed sessions must carry the verified certificate; OpenSSL refuses to resume without
    // a session id context when verifying clients.
    static constexpr unsigned char kContext[] = "verdict";
    SSL_CTX_set_session_id_context(native, kContext, sizeof(kContext) - 1);
  }
  return ctx;
}

// One route's request counters (by status) and duration histogram, looked up in the registry
// once: a registry lookup builds label strings and takes the registry's lock.
struct RouteSeries {
  Histogram* duration = nullptr;
  std::array<std::atomic<Counter*>, 500> by_status{};  // index: HTTP status - 100
};

struct ServerMetrics {
  MetricsRegistry* registry;
  Gauge* open_connections;
  Counter* refused_connections;
  Counter* tls_handshake_failures;
  // Filled on a route's first request, under `routes`' write lock (which guards route_series).
  mutable TenantMap<RouteSeries*> routes;
  mutable std::deque<RouteSeries> route_series;

  void CountRequest(std::string_view route, int status, double seconds) const {
    RouteSeries& series = **routes.FindOrInsert(route, [&]() -> std::optional<RouteSeries*> {
      RouteSeries& made = route_series.emplace_back();
      made.duration = registry->GetHistogram(
          "verdict_api_request_duration_seconds",
          "Time from a request fully read to its response handed to the socket",
          LatencyBucketsSeconds(), {{"route", std::string(route)}});
      return &made;
    });
    series.duration->Observe(seconds);
    const size_t slot = static_cast<size_t>(status - 100);
    if (slot >= series.by_status.size()) return RequestCounter(route, status)->Increment();
    Counter* counter = series.by_status[slot].load(std::memory_order_acquire);
    if (counter == nullptr) {
      // Two threads may both look it up: the registry returns the same counter to both.
      counter = RequestCounter(route, status);
      series.by_status[slot].store(counter, std::memory_order_release);
    }
    counter->Increment();
  }

  Counter* RequestCounter(std::string_view route, int status) const {
    return registry->GetCounter(
        "verdict_api_requests_total", "HTTP requests by route and status",
        {{"route", std::string(route)}, {"status", std::to_string(status)}});
  }
};

// One connection. Stream is beast::tcp_stream (plain HTTP) or an ssl_stream over one (TLS);
// everything else is shared. Runs on its own strand. Its time limits are enforced by the
// server's ConnectionDeadlines (the stream's own expiry is never set).
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>>, public TimedConnection {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  Session(tcp::socket socket, ssl::context* tls, const Router& router,
          const HttpServerOptions& options, const ServerMetrics& metrics)
      : stream_(MakeStream(std::move(socket), tls)),
        pause_timer_(stream_.get_executor()),
        router_(router),
        options_(options),
        metrics_(metrics) {
    metrics_.open_connections->Add(1);
  }
  ~Session() { metrics_.open_connections->Add(-1); }

  // `deadlines` enforces this connection's time limits from now until it is destroyed.
  void Start(ConnectionDeadlines& deadlines) {
    deadlines.Add(this->weak_from_this());
    if constexpr (!kTls) {
      // Write's direct send must return would_block rather than wait for a slow reader.
      beast::error_code ec;
      Tcp().socket().non_blocking(true, ec);
      direct_send_ = !ec;
    }
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (kTls) {
        self->Handshake();
      } else {
        self->ReadHeader();
      }
    });
  }

 private:
  static Stream MakeStream(tcp::socket&& socket, ssl::context* tls) {
    if constexpr (kTls) {
      return Stream(std::move(socket), *tls);
    } else {
      (void)tls;
      return Stream(std::move(socket));
    }
  }

  beast::tcp_stream& Tcp() { return beast::get_lowest_layer(stream_); }

  void OnDeadlinePassed() override {
    net::post(stream_.get_executor(), [self = this->shared_from_this()] {
      // On the strand: the connection may have moved on to a new deadline since the sweep.
      if (self->Expired(SystemClock::Instance().MonotonicNanos())) {
        self->ExpireNever();
        self->Close();
      }
    });
  }

  // A client that connects and never finishes the handshake (or speaks plain HTTP to the TLS
  // port) is cut off without an answer.
  void Handshake() {
    ExpireAfter(std::chrono::milliseconds(options_.tls.handshake_timeout_ms));
    stream_.async_handshake(ssl::stream_base::server,
                            [self = this->shared_from_this()](beast::error_code ec) {
                              if (ec) {
                                self->metrics_.tls_handshake_failures->Increment();
                                return self->Close();
                              }
                              self->principal_ = VerifiedPeerSubject(self->stream_.native_handle());
                              self->ReadHeader();
                            });
  }

  // The next request's first byte may take idle_timeout_ms; the rest of its header then has
  // read_timeout_ms, so a client trickling a header byte by byte cannot hold the connection.
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    parser_->body_limit(options_.max_body_bytes);
    if (buffer_.size() > 0) return ParseBufferedHeader(/*started=*/true);  // pipelined
    ExpireAfter(std::chrono::milliseconds(options_.idle_timeout_ms));
    stream_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->OnReadError(ec);
                              self->buffer_.commit(n);
                              self->ParseBufferedHeader(/*started=*/true);
                            });
  }

  // Most requests arrive whole in one read: what is buffered is parsed here, on this stack, and
  // the socket is read again only for a request still arriving. (Beast's async_read would
  // re-arm the stream's timer and post its completion for each phase, and re-offers the parser
  // bytes it refused with need_more; see PutAvailable.)
  // `started`: the header's first bytes just came; the rest has read_timeout_ms from now.
  void ParseBufferedHeader(bool started) {
    beast::error_code ec;
    PutBuffered(/*through_body=*/false, ec);
    if (ec) return OnReadError(ec);
    if (parser_->is_header_done()) return OnHeader({});
    if (started) ExpireAfter(std::chrono::milliseconds(options_.read_timeout_ms));
    ReadMore(/*through_body=*/false);
  }

  void PutBuffered(bool through_body, beast::error_code& ec) {
    const auto data = buffer_.data();
    buffer_.consume(PutAvailable(*parser_, {static_cast<const char*>(data.data()), data.size()},
                                 through_body, options_.max_header_bytes, ec));
  }

  // More of a request already begun, its header or its body, within the deadline set when that
  // part began (re-arming it per read would let a client trickling bytes hold the connection).
  void ReadMore(bool through_body) {
    stream_.async_read_some(
        buffer_.prepare(kReadBytes),
        [self = this->shared_from_this(), through_body](beast::error_code ec, size_t n) {
          self->buffer_.commit(n);
          if (ec == net::error::eof) {
            // Cut off mid-request: Beast's verdict on what came (partial_message).
            ec = {};
            self->parser_->put_eof(ec);
            if (!ec && !self->parser_->is_done()) ec = http::error::partial_message;
          }
          if (ec) return self->OnReadError(ec);
          if (through_body) return self->ReadBody(/*started=*/false);
          self->ParseBufferedHeader(/*started=*/false);
        });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    auto& header = parser_->get();
    if (auto length = parser_->content_length(); length && *length > options_.max_body_bytes) {
      return RespondError(ErrorResponse(InputTooLarge("body of " + std::to_string(*length) +
                                                      " bytes exceeds the limit of " +
                                                      std::to_string(options_.max_body_bytes))),
                          /*drain=*/true);
    }
    if (beast::iequals(header[http::field::expect], "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      ExpireAfter(std::chrono::milliseconds(options_.read_timeout_ms));
      net::async_write(stream_, net::buffer(kContinue),
                       [self = this->shared_from_this()](beast::error_code write_ec, size_t) {
                         if (write_ec) return self->Close();
                         self->ReadBody(/*started=*/true);
                       });
      return;
    }
    ReadBody(/*started=*/true);
  }

  // `started`: the body begins now; all of it has read_timeout_ms from here.
  void ReadBody(bool started) {
    beast::error_code ec;
    PutBuffered(/*through_body=*/true, ec);
    if (ec) return OnReadError(ec);
    if (parser_->is_done()) return Dispatch();
    if (started) ExpireAfter(std::chrono::milliseconds(options_.read_timeout_ms));
    ReadMore(/*through_body=*/true);
  }

  void OnReadError(beast::error_code ec) {
    ReadFailure failure = ClassifyReadError(ec, options_);
    if (failure.status == 0) return Close();
    RespondError(ReadFailureResponse(failure), failure.drain);
  }

  void RespondError(HttpResponse response, bool drain) {
    const int status = response.status;
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
    HttpRequest request = ToHttpRequest(std::move(raw));
    request.received_at_ns = SystemClock::Instance().MonotonicNanos();
    // The router keeps it as the principal once the API key names tenant and roles.
    request.auth.principal = principal_;
    ExpireNever();

    // The router records the matched pattern; the responder reads it when it runs, which may
    // be on this stack (synchronous handlers) or later on another thread.
    auto route = std::make_shared<std::string>("unmatched");
    const int64_t started = request.received_at_ns;
    auto self = this->shared_from_this();
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
    const bool close = response.close || !keep_alive_;
    auto out = std::make_shared<std::string>(SerializeHttpResponse(response, version_, close));
    const int64_t pause_ms =
        SpreadPause(std::min(response.pause_reading_ms, options_.max_read_pause_ms));
    ExpireAfter(std::chrono::milliseconds(options_.read_timeout_ms));
    size_t sent = 0;
    if constexpr (!kTls) {
      // A response nearly always fits the socket's send buffer: one send here, with no write
      // operation to start and no completion to post (bench/http_bench). Not while pipelined
      // requests wait in the buffer: going on inline would then recurse once per request.
      if (direct_send_ && buffer_.size() == 0) {
        beast::error_code ec;
        sent = Tcp().socket().write_some(net::buffer(*out), ec);
        if (ec && ec != net::error::would_block && ec != net::error::try_again) return Close();
        if (sent == out->size()) return AfterWrite(close, pause_ms);
      }
    }
    net::async_write(
        stream_, net::buffer(*out) + sent,
        [self = this->shared_from_this(), out, close, pause_ms](beast::error_code ec, size_t) {
          if (ec) return self->Close();
          self->AfterWrite(close, pause_ms);
        });
  }

  void AfterWrite(bool close, int64_t pause_ms) {
    if (close) return ShutdownAfterError();
    ReadHeaderAfter(pause_ms);
  }

  // The connection's next request is read after `pause_ms` (a refused, over-rate client).
  void ReadHeaderAfter(int64_t pause_ms) {
    if (pause_ms <= 0) return ReadHeader();
    ExpireNever();  // a pause is no read or write: the read timeout must not end it
    pause_timer_.expires_after(std::chrono::milliseconds(pause_ms));
    pause_timer_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
      if (ec) return self->Close();
      self->ReadHeader();
    });
  }

  // After an error response the client may still be sending a body we refused; reading and
  // discarding it before closing keeps the kernel from resetting the connection, which would
  // make the client lose our response. Over TLS the body is read through the TLS layer (a TCP
  // half-close would cut TLS short), and a connection with nothing to drain says close_notify.
  void ShutdownAfterError() {
    ExpireAfter(std::chrono::milliseconds(options_.read_timeout_ms));
    if constexpr (kTls) {
      if (drain_after_close_) return Drain();
      stream_.async_shutdown(
          [self = this->shared_from_this()](beast::error_code) { self->Close(); });
    } else {
      beast::error_code ec;
      Tcp().socket().shutdown(tcp::socket::shutdown_send, ec);
      if (!drain_after_close_) return Close();
      Drain();
    }
  }

  void Drain() {
    stream_.async_read_some(net::buffer(drain_buffer_),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kMaxDrainBytes) return self->Close();
                              self->Drain();
                            });
  }

  void Close() {
    beast::error_code ec;
    Tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
    Tcp().socket().close(ec);
  }

  Stream stream_;
  bool direct_send_ = false;       // plain TCP in non-blocking mode: Write may send at once
  net::steady_timer pause_timer_;  // ReadHeaderAfter
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  const Router& router_;
  const HttpServerOptions& options_;
  const ServerMetrics& metrics_;
  std::string principal_;  // the verified client certificate's subject; empty without one
  bool keep_alive_ = true;
  unsigned version_ = 11;
  bool drain_after_close_ = false;
  size_t drained_ = 0;
  std::array<char, 16384> drain_buffer_{};
};

}  // namespace

bool ParseClientCertMode(std::string_view name, TlsOptions::ClientCert* mode) {
  if (name == "off") {
    *mode = TlsOptions::ClientCert::kOff;
  } else if (name == "optional") {
    *mode = TlsOptions::ClientCert::kOptional;
  } else if (name == "require") {
    *mode = TlsOptions::ClientCert::kRequire;
  } else {
    return false;
  }
  return true;
}

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

// The server's io_context as its threads' EventLoop: work posted runs after the handlers and
// socket events already queued, on whichever I/O thread is free.
class AsioEventLoop : public EventLoop {
 public:
  explicit AsioEventLoop(net::io_context& ioc) : ioc_(ioc) {}
  void Post(std::function<void()> work) override { net::post(ioc_, std::move(work)); }

 private:
  net::io_context& ioc_;
};

namespace {
// Runs at most one ready handler without blocking, polling until one ran or `budget` passed.
// Each empty poll yields the core: a worker or the journal's writer pinned beside this thread
// runs at once instead of sharing the core with the poll (PERFORMANCE.md, session 17).
size_t PollFor(net::io_context& ioc, std::chrono::microseconds budget) {
  const auto until = std::chrono::steady_clock::now() + budget;
  do {
    if (size_t ran = ioc.poll_one()) return ran;
    sched_yield();
  } while (!ioc.stopped() && std::chrono::steady_clock::now() < until);
  return 0;
}

// io_context::run, with the calling thread's idle work (EventLoop::PostWhenIdle) run once the
// handlers that are ready have run. The turn is bounded so that a flood of ready handlers does
// not hold idle work back for long (what it holds back, the journal's commit, has its own
// thread as a second line: docs/architecture.md). With `busy_poll` the thread polls that long
// for a handler before it blocks.
void RunWithIdleWork(net::io_context& ioc, std::chrono::microseconds busy_poll) {
  constexpr int kMaxHandlersPerTurn = 256;
  while ((busy_poll.count() > 0 && PollFor(ioc, busy_poll) > 0) || ioc.run_one() > 0) {
    if (!EventLoop::HasIdleWork()) continue;
    for (int i = 0; i < kMaxHandlersPerTurn && ioc.poll_one() > 0; ++i) {
    }
    EventLoop::RunIdleWork();
  }
  EventLoop::RunIdleWork();
}
}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  const Router& router;
  ServerMetrics metrics;
  std::unique_ptr<ssl::context> tls;  // null: plain HTTP
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  ConnectionDeadlines deadlines;  // after ioc: its timer goes first
  AsioEventLoop loop{ioc};
  std::vector<std::thread> threads;
  std::atomic<bool> stopped{false};

  Impl(const HttpServerOptions& opts, const Router& r, MetricsRegistry& registry)
      : options(opts),
        router(r),
        deadlines(
            ioc,
            ConnectionDeadlines::TickFor(std::chrono::milliseconds(std::min(
                {opts.idle_timeout_ms, opts.read_timeout_ms,
                 opts.tls.enabled() ? opts.tls.handshake_timeout_ms : opts.read_timeout_ms})))) {
    metrics.registry = &registry;
    metrics.open_connections =
        registry.GetGauge("verdict_api_open_connections", "Open HTTP connections");
    metrics.refused_connections = registry.GetCounter("verdict_api_refused_connections_total",
                                                      "Connections closed at once over the cap");
    metrics.tls_handshake_failures = registry.GetCounter(
        "verdict_api_tls_handshake_failures_total",
        "TLS connections closed before a completed handshake (refused or bad client "
        "certificate, old protocol, plain HTTP, timeout)");
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
        if (tls) {
          std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
              std::move(socket), tls.get(), router, options, metrics)
              ->Start(deadlines);
        } else {
          std::make_shared<Session<beast::tcp_stream>>(std::move(socket), nullptr, router, options,
                                                       metrics)
              ->Start(deadlines);
        }
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
  if (options.tls.enabled()) {
    Result<std::unique_ptr<ssl::context>> tls = MakeTlsContext(options.tls);
    if (!tls.ok()) return tls.status();
    impl->tls = std::move(tls).value();
    static constexpr const char* kModes[] = {"off", "optional", "require"};
    spdlog::info("TLS on: minimum version {}, client certificates {}", options.tls.min_version,
                 kModes[static_cast<int>(options.tls.client_cert)]);
  }
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
  impl_->deadlines.Start();
  int n = std::max(1, impl_->options.io_threads);
  // With more threads, one sleeps in epoll_wait holding the reactor while the others' polls
  // find nothing: they would spin without seeing a packet sooner.
  const std::chrono::microseconds busy_poll(n == 1 ? impl_->options.busy_poll_us : 0);
  for (int i = 0; i < n; ++i) {
    impl_->threads.emplace_back([this, busy_poll] {
      if (impl_->options.io_thread_nice > 0) LowerOwnPriority(impl_->options.io_thread_nice);
      // Threads started from here on would inherit the lowered priority (and BackgroundPriority's
      // return to SCHED_OTHER would not undo it): start them from elsewhere.
      EventLoop::SetCurrent(&impl_->loop);
      RunWithIdleWork(impl_->ioc, busy_poll);
      EventLoop::SetCurrent(nullptr);
    });
    pthread_setname_np(impl_->threads.back().native_handle(), "verdict-io");  // for profiles
  }
}

void HttpServer::Stop() {
  if (impl_->stopped.exchange(true)) return;
  net::post(impl_->ioc, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
  });
  impl_->deadlines.Stop();
  impl_->ioc.stop();
  for (auto& t : impl_->threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace verdict
