// HttpClient: a blocking HTTP/1.1 client for one server (etcd's JSON gateway, a peer node), over
// one kept-alive connection, with a deadline on every call. A failed exchange closes the
// connection; the next call opens a new one. Plain http on loopback or a private network only.
// Not thread-safe: one caller at a time (each thread that needs one keeps its own).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace verdict::cluster {

// "http://host:port" (a path after it is ignored).
struct HttpEndpoint {
  std::string host;
  std::string port;
};
Result<HttpEndpoint> ParseHttpEndpoint(std::string_view url);

// One request to send. The client writes the framing itself (Host, Content-Length, Connection:
// keep-alive), so `headers` naming host, content-length, transfer-encoding or connection are
// left out; any other header is sent as given, repeated names included.
struct HttpCall {
  std::string method = "GET";  // any token, e.g. "POST"
  std::string target = "/";    // path and query, e.g. "/v1/decisions?dry_run=1"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The whole call (connect, send, answer, a second attempt too) ends within this; zero: the
  // client's timeout.
  std::chrono::milliseconds timeout{0};
  // Whether the request may be sent a second time when a kept-alive connection the server had
  // closed fails after the request went out. A request never fully written is always sent
  // again, once: the server cannot have acted on it.
  bool may_resend = false;
};

struct HttpAnswer {
  int status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-case, in order

  // The first value of a header (`lower_name` in lower case), or empty.
  std::string_view Header(std::string_view lower_name) const;
};

class HttpClient {
 public:
  HttpClient(HttpEndpoint endpoint, std::chrono::milliseconds timeout);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `call` and reads the whole answer, within the call's deadline. kUnavailable when the
  // server cannot be reached or does not answer in time; any HTTP status is returned as it is.
  Result<HttpAnswer> Call(const HttpCall& call);

  // POSTs `body` as application/json to `path` (a Call that may be resent: its callers' writes
  // are compare-then-put transactions, which a second run leaves unchanged).
  Result<HttpAnswer> PostJson(std::string_view path, std::string_view body);

 private:
  struct Connection;
  enum class Sent { kNothing, kAll };
  // One request and its answer; on any failure the connection is closed and `*sent` tells
  // whether the whole request had gone out.
  Result<HttpAnswer> Exchange(const HttpCall& call, std::chrono::steady_clock::time_point deadline,
                              Sent* sent);
  // Opens connection_ when there is none, or when the server has closed the kept-alive one;
  // `*reused`: the connection was open before.
  Status Connect(std::chrono::steady_clock::time_point deadline, bool* reused);
  Status Fail(std::string_view target, std::string_view step, const std::string& error);

  HttpEndpoint endpoint_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Connection> connection_;  // null until the first call, and after a failure
};

}  // namespace verdict::cluster
