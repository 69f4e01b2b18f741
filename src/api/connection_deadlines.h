// ConnectionDeadlines: the handshake, read and write time limits of every open HTTP
// connection, enforced by one periodic sweep rather than by a timer armed and cancelled around
// each read and write. beast::tcp_stream's per-operation expiry posted a timer wait and its
// cancellation for every read and every write, and reprogrammed the reactor's timerfd: a sixth
// to a fifth of the CPU of a loopback round trip (bench/http_bench; docs/PERFORMANCE.md, issue 7,
// session 11). Here a connection's deadline is one atomic store, and a connection past it is
// closed within one tick of the sweep (a tenth of the shortest configured limit, 10–100 ms).
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
#include <mutex>
#include <vector>

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
  void Add(std::weak_ptr<TimedConnection> connection);
  // Arms the periodic sweep on the io_context; Stop cancels it.
  void Start();
  void Stop();

  // One sweep at `now_ns` (monotonic): calls OnDeadlinePassed of each late connection and
  // forgets destroyed ones. Returns how many were late. The timer calls it; tests may too.
  size_t Sweep(int64_t now_ns);
  size_t watched() const;

  // The tick for these limits: a tenth of the shortest, within [10 ms, 100 ms].
  static std::chrono::milliseconds TickFor(std::chrono::milliseconds shortest_limit);

 private:
  void Arm();

  boost::asio::steady_timer timer_;
  const std::chrono::milliseconds tick_;
  mutable std::mutex mu_;
  std::vector<std::weak_ptr<TimedConnection>> connections_;  // guarded by mu_
  bool stopped_ = false;                                     // guarded by mu_
};

}  // namespace verdict
