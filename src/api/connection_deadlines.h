// ConnectionDeadlines: the handshake, read and write time limits of every open HTTP
// connection, enforced by one periodic sweep rather than by a timer armed and cancelled around
// each read and write. beast::tcp_stream's per-operation expiry posted a timer wait and its
// cancellation for every read and every write, and reprogrammed the reactor's timerfd: a sixth
// to a fifth of the CPU of a loopback round trip (bench/http_bench; see docs/PERFORMANCE.md
// (HTTP path: connection time limits)). Here a connection's deadline is one atomic store, and a
// connection past it is closed within one tick of the sweep (a tenth of the shortest configured
// limit, 10–100 ms).
//
// TimedConnection: what a connection exposes to the sweep. Its deadline may be set only on the
// connection's own executor; the sweep reads it from any thread.
// ConnectionDeadlines: thread-safe; its sweep runs on the io_context it was given.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict {

class TimedConnection {
 public:
  virtual ~TimedConnection() = default;

  // The connection must finish what it is doing within `limit` from now.
  void ExpireAfter(std::chrono::milliseconds limit);
  void ExpireNever() { deadline_ns_.store(kNever, std::memory_order_relaxed); }
  bool Expired(int64_t now_ns) const {
    return deadline_ns_.load(std::memory_order_relaxed) <= now_ns;
  }

  // Called by the sweep, on any thread, when the deadline has passed: the connection checks
  // again on its own executor (it may have moved on since) and closes itself if still late.
  virtual void OnDeadlinePassed() = 0;

 private:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  std::atomic<int64_t> deadline_ns_{kNever};
};

class ConnectionDeadlines {
 public:
  ConnectionDeadlines(boost::asio::io_context& ioc, std::chrono::milliseconds tick);

  // Watches `connection` until it is destroyed.
  void Add(std::weak_ptr<TimedConnection> connection) EXCLUDES(mu_);
  // Arms the periodic sweep on the io_context; Stop cancels it.
  void Start() EXCLUDES(mu_);
  void Stop() EXCLUDES(mu_);

  // One sweep at `now_ns` (monotonic): calls OnDeadlinePassed of each late connection and
  // forgets destroyed ones. Returns how many were late. The timer calls it; tests may too.
  size_t Sweep(int64_t now_ns) EXCLUDES(mu_);
  size_t watched() const EXCLUDES(mu_);

  // The tick for these limits: a tenth of the shortest, within [10 ms, 100 ms].
  static std::chrono::milliseconds TickFor(std::chrono::milliseconds shortest_limit);

 private:
  // Sets the timer for the next tick (its handler runs later, on the io_context, never inside).
  void Arm() REQUIRES(mu_);

  mutable Mutex mu_;
  // Not thread-safe itself: Start, Stop and the handler's re-arm may run on different threads.
  boost::asio::steady_timer timer_ GUARDED_BY(mu_);
  const std::chrono::milliseconds tick_;
  std::vector<std::weak_ptr<TimedConnection>> connections_ GUARDED_BY(mu_);
  bool stopped_ GUARDED_BY(mu_) = false;
};

}  // namespace verdict
