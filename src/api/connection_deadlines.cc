#include "api/connection_deadlines.h"

#include <algorithm>

#include "common/clock.h"

namespace verdict {

void TimedConnection::ExpireAfter(std::chrono::milliseconds limit) {
  const int64_t now = SystemClock::Instance().MonotonicNanos();
  deadline_ns_.store(now + std::chrono::nanoseconds(limit).count(), std::memory_order_relaxed);
}

ConnectionDeadlines::ConnectionDeadlines(boost::asio::io_context& ioc,
                                         std::chrono::milliseconds tick)
    : timer_(ioc), tick_(tick) {}

std::chrono::milliseconds ConnectionDeadlines::TickFor(std::chrono::milliseconds shortest_limit) {
  return std::clamp(shortest_limit / 10, std::chrono::milliseconds(10),
                    std::chrono::milliseconds(100));
}

void ConnectionDeadlines::Add(std::weak_ptr<TimedConnection> connection) {
  MutexLock lock(mu_);
  connections_.push_back(std::move(connection));
}

void ConnectionDeadlines::Start() {
  MutexLock lock(mu_);
  stopped_ = false;
  Arm();
}

void ConnectionDeadlines::Stop() {
  MutexLock lock(mu_);
  stopped_ = true;
  timer_.cancel();
}

void ConnectionDeadlines::Arm() {
  timer_.expires_after(tick_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: stopping
    Sweep(SystemClock::Instance().MonotonicNanos());
    MutexLock lock(mu_);
    if (!stopped_) Arm();
  });
}

size_t ConnectionDeadlines::Sweep(int64_t now_ns) {
  std::vector<std::shared_ptr<TimedConnection>> late;
  {
    MutexLock lock(mu_);
    size_t kept = 0;
    for (size_t i = 0; i < connections_.size(); ++i) {
      std::shared_ptr<TimedConnection> connection = connections_[i].lock();
      if (!connection) continue;  // closed and gone: forget it
      if (connection->Expired(now_ns)) late.push_back(connection);
      if (kept != i) connections_[kept] = std::move(connections_[i]);
      ++kept;
    }
    connections_.resize(kept);
  }
  // Outside the lock: a connection may destroy itself, or another be added, meanwhile.
  for (auto& connection : late) connection->OnDeadlinePassed();
  return late.size();
}

size_t ConnectionDeadlines::watched() const {
  MutexLock lock(mu_);
  return connections_.size();
}

}  // namespace verdict
