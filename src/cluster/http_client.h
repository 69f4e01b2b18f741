// HttpClient: a blocking HTTP/1.1 client for one server (etcd's JSON gateway, a peer node), over
// one kept-alive connection, with a deadline on every exchange. A failed exchange closes the
// connection; the next call opens a new one. Plain http on loopback or a private network only.
// Not thread-safe: one caller at a time (each thread that needs one keeps its own).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict::cluster {

// "http://host:port" (a path after it is ignored).
struct HttpEndpoint {
  std::string host;
  std::string port;
};
Result<HttpEndpoint> ParseHttpEndpoint(std::string_view url);

struct HttpAnswer {
  int status = 0;
  std::string body;
};

class HttpClient {
 public:
  HttpClient(HttpEndpoint endpoint, std::chrono::milliseconds timeout);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // POSTs `body` as application/json to `path` and reads the whole answer, within the timeout.
  // kUnavailable when the server cannot be reached or does not answer in time; any HTTP status
  // is returned as it is.
  Result<HttpAnswer> PostJson(std::string_view path, std::string_view body);

 private:
  struct Connection;
  // One request and its answer; on any failure the connection is closed.
  Result<HttpAnswer> Exchange(std::string_view path, std::string_view body);
  HttpEndpoint endpoint_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Connection> connection_;  // null until the first call, and after a failure
};

}  // namespace verdict::cluster
