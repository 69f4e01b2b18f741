#include "api/http_session.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <type_traits>

#include "api/error_response.h"
#include "api/http_parse.h"
#include "api/tls_context.h"
#include "common/clock.h"

namespace verdict::http_internal {
namespace {

constexpr size_t kMaxDrainBytes = 64 << 20;
// What one read for the first bytes of a request asks for (each idle connection holds this
// much), and each read for the rest of one (a body of megabytes takes fewer reads).
constexpr size_t kFirstReadBytes = 16 << 10;
constexpr size_t kReadBytes = 64 << 10;

// A read pause drawn from [pause_ms / 2, pause_ms]: connections refused together (a flooding
// tenant's) would otherwise all come back at the same moment, as a burst.
int64_t SpreadPause(int64_t pause_ms) {
  if (pause_ms <= 1) return pause_ms;
  thread_local std::minstd_rand random(std::random_device{}());
  return std::uniform_int_distribution<int64_t>(pause_ms / 2, pause_ms)(random);
}

// One connection. Stream is beast::tcp_stream (plain HTTP) or an ssl_stream over one (TLS);
// everything else is shared. Runs on its own strand. Its time limits are enforced by the
// server's ConnectionDeadlines (the stream's own expiry is never set).
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>>, public TimedConnection {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  Session(tcp::socket socket, ssl::context* tls, const Router& router,
          const HttpServerOptions& options, const ServerMetrics& metrics, ConnectionLimits& limits,
          ConnectionLimits::Claim address_claim)
      : stream_(MakeStream(std::move(socket), tls)),
        pause_timer_(stream_.get_executor()),
        router_(router),
        options_(options),
        metrics_(metrics),
        limits_(limits),
        address_claim_(std::move(address_claim)) {
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
    // No body limit while the header is parsed: a declared length over it is refused in
    // OnHeader, after the key is checked, so that a caller without one does not learn the limit.
    // (Not boost::none: Beast 1.74 compares a declared length with it as with a limit of 0.)
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
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

  // The request's head is judged before its body is read: its key, role and media type
  // (Router::CheckHead) and its tenant's connections, and only then its body's size.
  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    auto& header = parser_->get();
    const bool body_follows = !parser_->is_done();
    request_ = ToHttpRequestHead(header);
    // The router keeps it as the principal once the API key names tenant and roles.
    request_.auth.principal = principal_;
    Router::HeadCheck check = router_.CheckHead(request_, body_follows);
    if (!check.refusal) check.refusal = ClaimTenant();
    if (check.refusal) return Refuse(std::move(*check.refusal), check.route, body_follows);
    if (auto length = parser_->content_length(); length && *length > options_.max_body_bytes) {
      return RespondError(ErrorResponse(InputTooLarge("body of " + std::to_string(*length) +
                                                      " bytes exceeds the limit of " +
                                                      std::to_string(options_.max_body_bytes))),
                          /*drain=*/true);
    }
    parser_->body_limit(options_.max_body_bytes);  // a chunked body's, as it comes
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

  // The connection counts against its caller's tenant from its first authenticated request (a
  // request as another tenant moves it there). A tenant at its limit is refused, and the
  // connection closed, so that its connections leave room for other tenants'.
  std::optional<HttpResponse> ClaimTenant() {
    const AuthContext& auth = request_.auth;
    if (!auth.authenticated || (tenant_claim_.held() && tenant_claim_.key() == auth.tenant)) {
      return std::nullopt;
    }
    tenant_claim_ = ConnectionLimits::Claim();
    tenant_claim_ = limits_.ClaimTenant(auth.tenant);
    if (tenant_claim_.held()) return std::nullopt;
    metrics_.tenant_refused_connections->Increment();
    HttpResponse response = ErrorResponse(
        Status(StatusCode::kResourceExhausted,
               "this tenant holds as many connections as the server allows one tenant "
               "(server.max_connections_per_tenant); reuse or close one"));
    response.close = true;
    return response;
  }

  // Answers a request refused from its head. With a body still to come the connection closes
  // after the answer: the body is not read, only drained unparsed so that the client is not
  // reset before it reads the answer. Without one the connection goes on as after any answer.
  void Refuse(HttpResponse response, std::string_view route, bool body_follows) {
    const auto& header = parser_->get();
    keep_alive_ = header.keep_alive();
    version_ = header.version();
    if (body_follows) {
      response.close = true;
      drain_after_close_ = true;
      keep_alive_ = false;
    }
    ExpireNever();
    Write(std::move(response), std::string(route), SystemClock::Instance().MonotonicNanos());
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
    // The head as OnHeader judged it (its caller authenticated there), with the body.
    HttpRequest request = std::move(request_);
    request.body = std::move(raw.body());
    request.received_at_ns = SystemClock::Instance().MonotonicNanos();
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
  ConnectionLimits& limits_;
  ConnectionLimits::Claim address_claim_;  // held from accept until the connection is gone
  ConnectionLimits::Claim tenant_claim_;   // from the first authenticated request
  HttpRequest request_;                    // the request being read: its head, then dispatched
  std::string principal_;  // the verified client certificate's subject; empty without one
  bool keep_alive_ = true;
  unsigned version_ = 11;
  bool drain_after_close_ = false;
  size_t drained_ = 0;
  std::array<char, 16384> drain_buffer_{};
};

}  // namespace

void StartSession(tcp::socket socket, ssl::context* tls, const Router& router,
                  const HttpServerOptions& options, const ServerMetrics& metrics,
                  ConnectionDeadlines& deadlines, ConnectionLimits& limits,
                  ConnectionLimits::Claim address_claim) {
  if (tls != nullptr) {
    std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
        std::move(socket), tls, router, options, metrics, limits, std::move(address_claim))
        ->Start(deadlines);
  } else {
    std::make_shared<Session<beast::tcp_stream>>(std::move(socket), nullptr, router, options,
                                                 metrics, limits, std::move(address_claim))
        ->Start(deadlines);
  }
}

}  // namespace verdict::http_internal
