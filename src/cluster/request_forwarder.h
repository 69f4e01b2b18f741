// RequestForwarder: lets a cluster node answer a request whose partition another node owns
// (DESIGN §9): the request goes to the owner as it came (method, path and query, end-to-end
// headers, body) and the owner's answer comes back as it is (status, content type, headers such
// as Retry-After, body). Forward only queues; a fixed set of worker threads does the blocking
// exchanges, each over its own kept-alive connection per owner, so a slow owner costs a worker,
// never an I/O thread. When no answer can be had (the owner unreachable or past the deadline,
// the queue full, the request already forwarded once) the caller gets 503 with Retry-After: 1;
// a request that may have reached the owner is never sent again here (a client retries: its
// transaction id makes a decision safe to resend).
//
// Thread safety: Forward may be called from any thread, I/O threads included (it never
// blocks). The Responder is called on a worker thread, or on the calling thread for an answer
// given at once: the server's Responder allows that (http_session posts the write to the
// connection's strand, and the Responder keeps the connection alive until then).
// Ownership: holds each queued request's Responder, which keeps its connection, and with it the
// HttpServer's I/O objects, in use; Stop (or destroy) the forwarder before the server that
// produced those requests. Stop answers whatever is still queued with 503.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/http_message.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"

namespace verdict::cluster {

// The header that marks a forwarded request, with the forwarding node's id as its value.
inline constexpr std::string_view kForwardedByHeader = "x-verdict-forwarded-by";

struct RequestForwarderOptions {
  std::string node_id;  // this node's id, sent in kForwardedByHeader; required
  int threads = 4;      // workers, each with its own connection to each owner; >= 1
  // Requests waiting for a worker; beyond it Forward answers 503 at once. >= 1.
  size_t queue_capacity = 1024;
  // From Forward to the owner's whole answer, the time spent queued included. > 0.
  std::chrono::milliseconds timeout{5'000};
};

class RequestForwarder {
 public:
  // Starts the workers. `metrics` (must outlive the forwarder) gets
  // verdict_cluster_forwarded_requests_total (answered by the owner) and
  // verdict_cluster_forward_failures_total{reason="unreachable|queue_full|loop|stopped"}.
  static Result<std::unique_ptr<RequestForwarder>> Create(const RequestForwarderOptions& options,
                                                          MetricsRegistry& metrics);
  ~RequestForwarder();
  RequestForwarder(const RequestForwarder&) = delete;
  RequestForwarder& operator=(const RequestForwarder&) = delete;

  // Sends `request` to `owner_url` ("http://host:port") and answers `respond` with the owner's
  // response, or with 503 as above. Calls `respond` exactly once.
  void Forward(const std::string& owner_url, HttpRequest&& request, Responder respond)
      EXCLUDES(mu_);

  // Answers every queued request 503 and joins the workers; later calls to Forward answer 503
  // at once. Idempotent.
  void Stop() EXCLUDES(mu_);

 private:
  struct Item {
    std::string owner_url;
    HttpRequest request;
    Responder respond;
    std::chrono::steady_clock::time_point deadline;
  };
  struct Counters {
    Counter* forwarded;
    Counter* unreachable;
    Counter* queue_full;
    Counter* loop;
    Counter* stopped;
  };

  RequestForwarder(const RequestForwarderOptions& options, MetricsRegistry& metrics);
  void Work() EXCLUDES(mu_);
  // Waits for the next item; false once stopping.
  bool Next(Item* item) EXCLUDES(mu_);

  const RequestForwarderOptions options_;
  const Counters counters_;
  Mutex mu_;
  CondVar ready_;  // signalled when an item is queued or stopping_ is set
  std::deque<Item> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  Mutex stop_mu_;  // serializes Stop, so that the workers are joined once
  std::vector<std::thread> workers_ GUARDED_BY(stop_mu_);  // started by Create
};

// The 503 the forwarder answers when it has no answer from the owner: the one error body
// (api/error_response.h) for `status`, with Retry-After: 1.
HttpResponse ForwardingRefusal(const Status& status);

}  // namespace verdict::cluster
