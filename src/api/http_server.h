// HttpServer: HTTP/1.1 on Boost.Beast/Asio with keep-alive, pipelining (requests on one
// connection are answered in order), bounded headers and bodies, idle and read timeouts, and
// a connection cap. Owns its io_context and I/O threads; handlers run on an I/O thread and
// must not block (they hand work to the engine and answer through the Responder).
// Start/Stop are called from one controlling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "api/router.h"
#include "common/metrics.h"
#include "common/result.h"

namespace verdict {

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 8080;  // 0 picks an ephemeral port; see HttpServer::port()
  int io_threads = 1;
  size_t max_body_bytes = 4 << 20;     // larger bodies get 413
  size_t max_header_bytes = 16 << 10;  // larger header blocks get 431
  int idle_timeout_ms = 60'000;        // waiting for the next request on a kept-alive connection
  int read_timeout_ms = 10'000;        // reading one request body, writing one response
  size_t max_connections = 10'000;     // connections beyond are closed at once
};

class HttpServer {
 public:
  // Binds and listens; fails with a Status naming the address when it cannot.
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
