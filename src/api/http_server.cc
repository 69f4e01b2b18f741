#include "api/http_server.h"

#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "api/http_beast.h"
// After http_beast.h: it includes Asio too.
#include "api/connection_deadlines.h"
#include "api/http_session.h"
#include "api/tls_context.h"
#include "common/event_loop.h"

namespace verdict {
namespace {

namespace net = http_internal::net;
namespace ssl = http_internal::ssl;
namespace beast = http_internal::beast;
using tcp = http_internal::tcp;
using http_internal::MakeTlsContext;
using http_internal::ServerMetrics;

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

// The server's io_context as its threads' EventLoop: work posted runs after the handlers and
// socket events already queued, on whichever I/O thread is free.
class AsioEventLoop : public EventLoop {
 public:
  explicit AsioEventLoop(net::io_context& ioc) : ioc_(ioc) {}
  void Post(std::function<void()> work) override { net::post(ioc_, std::move(work)); }

 private:
  net::io_context& ioc_;
};

// Runs at most one ready handler without blocking, polling until one ran or `budget` passed.
// Each empty poll yields the core: a worker or the journal's writer pinned beside this thread
// runs at once instead of sharing the core with the poll (docs/PERFORMANCE.md, busy polling
// and halted vCPUs).
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
  // Before ioc: the connections destroyed with it give their claims back.
  ConnectionLimits limits;
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
        limits(opts.max_connections_per_address, opts.max_connections_per_tenant),
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
    metrics.address_refused_connections =
        registry.GetCounter("verdict_api_address_refused_connections_total",
                            "Connections closed at once because their client address held "
                            "max_connections_per_address");
    metrics.tenant_refused_connections =
        registry.GetCounter("verdict_api_tenant_refused_connections_total",
                            "Connections answered 429 and closed because their tenant held "
                            "max_connections_per_tenant");
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
      Admit(std::move(socket));
      Accept();
    });
  }

  // A connection just accepted is served, or closed at once when the server holds its cap or its
  // client address holds its share of it.
  void Admit(tcp::socket socket) {
    beast::error_code ec;
    if (metrics.open_connections->value() >= static_cast<double>(options.max_connections)) {
      metrics.refused_connections->Increment();
      socket.close(ec);
      return;
    }
    const tcp::endpoint peer = socket.remote_endpoint(ec);
    if (ec) {  // gone already
      socket.close(ec);
      return;
    }
    ConnectionLimits::Claim claim = limits.ClaimAddress(peer.address().to_string());
    if (!claim.held()) {
      metrics.address_refused_connections->Increment();
      socket.close(ec);
      return;
    }
    socket.set_option(tcp::no_delay(true), ec);
    http_internal::StartSession(std::move(socket), tls.get(), router, options, metrics, deadlines,
                                limits, std::move(claim));
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
