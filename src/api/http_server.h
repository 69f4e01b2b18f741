// HttpServer: HTTP/1.1 on Boost.Beast/Asio, in the clear or over TLS (optionally mutual), with
// keep-alive, pipelining (requests on one connection are answered in order), bounded headers
// and bodies, idle, header, read and handshake timeouts, and connection caps. Owns its io_context
// and I/O threads; handlers run on an I/O thread and must not block (they hand work to the engine
// and answer through the Responder). Start/Stop are called from one controlling thread.
// Requests are authenticated from their headers, before a body is read (Router::CheckHead), and
// connections are limited per client address and per tenant below the cap (ConnectionLimits).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "api/http_message.h"
#include "api/router.h"
#include "common/metrics.h"
#include "common/result.h"

namespace verdict {

// TLS on the listening port (docs/security.md). Off while cert_file is empty; then the port
// speaks plain HTTP exactly as before. On, the port speaks only TLS: a plain HTTP request on it
// fails the handshake and is closed unanswered.
struct TlsOptions {
  enum class ClientCert { kOff, kOptional, kRequire };

  std::string cert_file;  // PEM: the server certificate, then its intermediates
  std::string key_file;   // PEM private key of cert_file (unencrypted)
  // PEM CA certificates that client certificates must chain to. Needed unless client_cert is
  // kOff. A verified client certificate's subject (RFC 4514) becomes the caller's principal.
  std::string client_ca_file;
  ClientCert client_cert = ClientCert::kOff;
  // Oldest protocol accepted: "1.2" (ECDHE + AEAD cipher suites only) or "1.3".
  std::string min_version = "1.2";
  int handshake_timeout_ms = 10'000;  // connect to handshake done

  bool enabled() const { return !cert_file.empty(); }
};

// "off", "optional", "require" <-> ClientCert; Parse is false for other names.
bool ParseClientCertMode(std::string_view name, TlsOptions::ClientCert* mode);

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 8080;  // 0 picks an ephemeral port; see HttpServer::port()
  int io_threads = 1;
  size_t max_body_bytes = 4 << 20;     // larger bodies get 413
  size_t max_header_bytes = 16 << 10;  // larger header blocks get 431
  int idle_timeout_ms = 60'000;        // waiting for the first byte of the next request
  // Reading the rest of one request's header after its first byte (so a client trickling a
  // header byte by byte is cut off), reading one body, writing one response.
  int read_timeout_ms = 10'000;
  size_t max_connections = 10'000;  // connections beyond are closed at once
  // Connections one client address may hold, below max_connections so that one client holding
  // many (idle or not) leaves room for others; beyond, closed at once. 0: no limit per address
  // (behind a proxy that hides clients' addresses).
  size_t max_connections_per_address = 2'000;
  // Connections whose requests authenticate as one tenant: a request on a further connection
  // gets 429 and the connection closes. 0: no limit per tenant.
  size_t max_connections_per_tenant = 5'000;
  // Upper bound on HttpResponse::pause_reading_ms; 0: never pause.
  int64_t max_read_pause_ms = 1'000;
  // How long an I/O thread with nothing to do polls its sockets before it sleeps in
  // epoll_wait. 0: it sleeps at once. On a VM, a vCPU that halts takes up to milliseconds to be
  // woken by the next packet; a thread that polls keeps its vCPU running and needs no wake-up.
  // Costs a core while traffic comes at least this often (docs/architecture.md, "Busy polling").
  // Any handler restarts the poll, the connection-deadline sweep's too (every 10-100 ms), so
  // the configuration keeps it far below that. Only with io_threads = 1; ignored otherwise.
  int busy_poll_us = 0;
  // Added to the I/O threads' nice value (0..19, the sum capped at 19). Above 0, when the core
  // is contended they yield to the threads that finish what was already read (the scheduler's
  // worker, the journal's writer and committer) and to the realtime listener's thread, which
  // keeps the process's: reading more requests then waits, not completing admitted ones. Below
  // the journal's group-delay rate the I/O thread also commits (commit_on_io_thread), at that
  // lower priority (docs/architecture.md, "Realtime listener").
  int io_thread_nice = 0;
  TlsOptions tls;
};

// One request parsed off the front of `bytes` exactly as a connection does (Beast's parser with
// the header and body limits of `options`, then the conversion to HttpRequest), so that the
// fuzzer and tests exercise the server's parsing path without a socket.
struct ParsedHttpRequest {
  bool complete = false;  // a whole request was parsed; false with error_status 0: need more
  int error_status = 0;   // the status the server answers instead (400, 413, 431), or 0
  std::string error_message;
  HttpRequest request;
  size_t consumed = 0;  // bytes of `bytes` the request took
};
// `piece_bytes`: the bytes arrive that many at a time, each arrival parsed as a connection
// parses what it has read (the outcome must not depend on it).
ParsedHttpRequest ParseHttpRequest(std::string_view bytes, const HttpServerOptions& options,
                                   size_t piece_bytes = SIZE_MAX);

// `response` as HTTP/1.0 bytes for `version` 10, HTTP/1.1 otherwise, header and body: Server,
// Content-Type, the response's own headers, Content-Length, and Connection where `close` differs
// from the version's default. One buffer, so a response is one socket write.
std::string SerializeHttpResponse(const HttpResponse& response, unsigned version, bool close);

class HttpServer {
 public:
  // Binds and listens; fails with a Status naming the address when it cannot, or naming the
  // server.tls key whose file cannot be loaded (a key not matching its certificate included).
  static Result<std::unique_ptr<HttpServer>> Create(const HttpServerOptions& options,
                                                    const Router& router, MetricsRegistry& metrics);
  ~HttpServer();

  uint16_t port() const;
  // Starts accepting on the I/O threads; returns at once.
  void Start();
  // Stops accepting, closes connections and joins the I/O threads. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace verdict
