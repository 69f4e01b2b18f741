#include "cluster/request_forwarder.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "api/error_response.h"
#include "cluster/http_client.h"

namespace verdict::cluster {

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, not the message: each hop
// writes its own. Content-Length is rewritten by whoever writes the message next, and Expect has
// been met already: the whole body was read before the request reached a handler.
bool IsHopByHop(std::string_view lower_name) {
  static constexpr std::string_view kNames[] = {
      "connection", "keep-alive", "transfer-encoding", "te",     "trailer",
      "upgrade",    "host",       "content-length",    "expect",
  };
  return lower_name.starts_with("proxy-") ||
         std::find(std::begin(kNames), std::end(kNames), lower_name) != std::end(kNames);
}

// A Connection header's options name further headers that concern this connection only.
std::vector<std::string> ConnectionOptions(const Headers& headers) {
  std::vector<std::string> names;
  for (const auto& [name, value] : headers) {
    if (name != "connection") continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string option(Trim(rest.substr(0, comma)));
      for (char& c : option) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      if (!option.empty()) names.push_back(std::move(option));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  return names;
}

// The end-to-end headers of `headers` (names lower-case).
Headers EndToEnd(Headers headers) {
  const std::vector<std::string> options = ConnectionOptions(headers);
  std::erase_if(headers, [&options](const auto& header) {
    return IsHopByHop(header.first) ||
           std::find(options.begin(), options.end(), header.first) != options.end();
  });
  return headers;
}

bool HasHeader(const HttpRequest& request, std::string_view lower_name) {
  return std::any_of(request.headers.begin(), request.headers.end(),
                     [lower_name](const auto& header) { return header.first == lower_name; });
}

HttpCall ToCall(HttpRequest&& request, const std::string& node_id,
                std::chrono::milliseconds timeout) {
  HttpCall call;
  call.method = std::move(request.method);
  call.target = request.query.empty() ? std::move(request.path)
                                      : std::move(request.path) + "?" + request.query;
  call.headers = EndToEnd(std::move(request.headers));
  call.headers.emplace_back(kForwardedByHeader, node_id);
  call.body = std::move(request.body);
  call.timeout = timeout;
  // Once sent, a request is not sent again here: only its client knows whether a second run
  // is safe (a decision's transaction id makes it so), and the client retries on a 503.
  call.may_resend = false;
  return call;
}

// The owner's answer as this node's response. The server writes Server, Content-Length and the
// connection's own headers itself; Content-Type travels in its own field.
HttpResponse ToResponse(HttpAnswer&& answer) {
  HttpResponse response;
  response.status = answer.status;
  const std::string_view content_type = answer.Header("content-type");
  if (!content_type.empty()) response.content_type = std::string(content_type);
  response.headers = EndToEnd(std::move(answer.headers));
  std::erase_if(response.headers, [](const auto& header) {
    return header.first == "content-type" || header.first == "server";
  });
  response.body = std::move(answer.body);
  return response;
}

}  // namespace

HttpResponse ForwardingRefusal(const Status& status) {
  HttpResponse response = ErrorResponse(status);
  response.headers.emplace_back("Retry-After", "1");
  return response;
}

Result<std::unique_ptr<RequestForwarder>> RequestForwarder::Create(
    const RequestForwarderOptions& options, MetricsRegistry& metrics) {
  if (options.node_id.empty()) return InvalidArgument("node id is required", "node_id");
  if (options.threads < 1) return InvalidArgument("threads must be at least 1", "threads");
  if (options.queue_capacity < 1) {
    return InvalidArgument("queue capacity must be at least 1", "queue_capacity");
  }
  if (options.timeout.count() <= 0) return InvalidArgument("timeout must be > 0", "timeout");
  std::unique_ptr<RequestForwarder> forwarder(new RequestForwarder(options, metrics));
  MutexLock lock(forwarder->stop_mu_);
  for (int i = 0; i < options.threads; ++i) {
    forwarder->workers_.emplace_back([f = forwarder.get()] { f->Work(); });
  }
  return forwarder;
}

RequestForwarder::RequestForwarder(const RequestForwarderOptions& options, MetricsRegistry& metrics)
    : options_(options), counters_([&metrics] {
        constexpr const char* kFailures = "verdict_cluster_forward_failures_total";
        constexpr const char* kFailuresHelp =
            "Requests forwarded to a partition owner that got no answer from it, by reason";
        const auto failures = [&](const char* reason) {
          return metrics.GetCounter(kFailures, kFailuresHelp, {{"reason", reason}});
        };
        return Counters{
            metrics.GetCounter("verdict_cluster_forwarded_requests_total",
                               "Requests forwarded to a partition owner and answered by it"),
            failures("unreachable"), failures("queue_full"), failures("loop"), failures("stopped")};
      }()) {}

RequestForwarder::~RequestForwarder() { Stop(); }

void RequestForwarder::Forward(const std::string& owner_url, HttpRequest&& request,
                               Responder respond) {
  // A request forwarded once and arriving at a node that does not own it either means two
  // nodes disagree about the owner (a fail-over in progress): going on could send it round in
  // a loop. The client tries again once the partition map has settled.
  if (HasHeader(request, kForwardedByHeader)) {
    counters_.loop->Increment();
    respond(ForwardingRefusal(Unavailable(
        "the request was forwarded by node " +
        std::string(request.Header(kForwardedByHeader).substr(0, 100)) +
        " to a node that does not own its partition either; the partition's owner is changing")));
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  bool stopping = false;
  {
    MutexLock lock(mu_);
    stopping = stopping_;
    if (!stopping && queue_.size() < options_.queue_capacity) {
      queue_.push_back(Item{owner_url, std::move(request), std::move(respond), deadline});
      ready_.Signal();
      return;
    }
  }
  if (stopping) {
    counters_.stopped->Increment();
    respond(ForwardingRefusal(Unavailable("this node is stopping")));
    return;
  }
  counters_.queue_full->Increment();
  respond(ForwardingRefusal(
      Unavailable("too many requests are waiting to be forwarded to the partition's owner")));
}

bool RequestForwarder::Next(Item* item) {
  MutexLock lock(mu_);
  while (!stopping_ && queue_.empty()) ready_.Wait(mu_);
  if (stopping_) return false;
  *item = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

void RequestForwarder::Work() {
  // Clients by owner URL, this worker's alone: each keeps its own connection to its owner.
  std::map<std::string, std::unique_ptr<HttpClient>, std::less<>> clients;
  Item item;
  while (Next(&item)) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(
        item.deadline - std::chrono::steady_clock::now());
    Result<HttpAnswer> answer = Unavailable("the deadline passed before a worker was free");
    if (left.count() > 0) {
      auto it = clients.find(item.owner_url);
      if (it == clients.end()) {
        Result<HttpEndpoint> endpoint = ParseHttpEndpoint(item.owner_url);
        if (endpoint.ok()) {
          auto client = std::make_unique<HttpClient>(std::move(*endpoint), options_.timeout);
          it = clients.emplace(item.owner_url, std::move(client)).first;
        } else {
          answer = endpoint.status();
        }
      }
      if (it != clients.end()) {
        answer = it->second->Call(ToCall(std::move(item.request), options_.node_id, left));
      }
    }
    if (answer.ok()) {
      counters_.forwarded->Increment();
      item.respond(ToResponse(std::move(answer).value()));
    } else {
      // The cause (answer.status()) names internal addresses, which stay out of a client's
      // view; the failure counter records that it happened.
      counters_.unreachable->Increment();
      item.respond(ForwardingRefusal(
          Unavailable("the node that owns this request's partition did not answer in time")));
    }
    item = Item();
  }
}

void RequestForwarder::Stop() {
  MutexLock stop_lock(stop_mu_);
  std::deque<Item> left;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    left.swap(queue_);
  }
  ready_.SignalAll();
  // The queued requests are answered before the workers' exchanges in flight end (each within
  // its deadline), so that their clients can go elsewhere at once.
  for (Item& item : left) {
    counters_.stopped->Increment();
    item.respond(ForwardingRefusal(Unavailable("this node is stopping")));
  }
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

}  // namespace verdict::cluster
