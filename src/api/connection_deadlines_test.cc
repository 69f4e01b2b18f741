#include "api/connection_deadlines.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <thread>

#include "common/clock.h"

namespace verdict {
namespace {

class FakeConnection : public TimedConnection {
 public:
  void OnDeadlinePassed() override { ++passed; }
  int passed = 0;
};

int64_t Now() { return SystemClock::Instance().MonotonicNanos(); }

TEST(ConnectionDeadlinesTest, OnlyLateConnectionsAreTold) {
  boost::asio::io_context ioc;
  ConnectionDeadlines deadlines(ioc, std::chrono::milliseconds(10));
  auto late = std::make_shared<FakeConnection>();
  auto on_time = std::make_shared<FakeConnection>();
  auto idle = std::make_shared<FakeConnection>();  // no deadline set: never late
  late->ExpireAfter(std::chrono::milliseconds(0));
  on_time->ExpireAfter(std::chrono::milliseconds(60'000));
  deadlines.Add(late);
  deadlines.Add(on_time);
  deadlines.Add(idle);

  EXPECT_EQ(deadlines.Sweep(Now() + 1), 1u);
  EXPECT_EQ(late->passed, 1);
  EXPECT_EQ(on_time->passed, 0);
  EXPECT_EQ(idle->passed, 0);

  // A new deadline, or none, takes the connection off the late list.
  late->ExpireNever();
  EXPECT_EQ(deadlines.Sweep(Now() + 1), 0u);
  // A minute on, the other one is late too.
  EXPECT_EQ(deadlines.Sweep(Now() + int64_t{61} * 1'000'000'000), 1u);
  EXPECT_EQ(on_time->passed, 1);
}

TEST(ConnectionDeadlinesTest, DestroyedConnectionsAreForgotten) {
  boost::asio::io_context ioc;
  ConnectionDeadlines deadlines(ioc, std::chrono::milliseconds(10));
  auto kept = std::make_shared<FakeConnection>();
  deadlines.Add(kept);
  {
    auto gone = std::make_shared<FakeConnection>();
    gone->ExpireAfter(std::chrono::milliseconds(0));
    deadlines.Add(gone);
  }
  EXPECT_EQ(deadlines.watched(), 2u);
  EXPECT_EQ(deadlines.Sweep(Now() + 1), 0u);
  EXPECT_EQ(deadlines.watched(), 1u);
}

TEST(ConnectionDeadlinesTest, TheTimerSweepsUntilStopped) {
  boost::asio::io_context ioc;
  ConnectionDeadlines deadlines(ioc, std::chrono::milliseconds(10));
  auto late = std::make_shared<FakeConnection>();
  late->ExpireAfter(std::chrono::milliseconds(0));
  deadlines.Add(late);
  deadlines.Start();
  // Runs the io_context until the first sweep has told the connection (bounded: 1,000 ticks).
  for (int i = 0; i < 1000 && late->passed == 0; ++i) ioc.run_one();
  EXPECT_GE(late->passed, 1);
  deadlines.Stop();
  ioc.run();  // returns: the cancelled timer was the only work, and it is not re-armed
}

TEST(ConnectionDeadlinesTest, TickIsATenthOfTheShortestLimitWithinBounds) {
  EXPECT_EQ(ConnectionDeadlines::TickFor(std::chrono::milliseconds(1000)),
            std::chrono::milliseconds(100));
  EXPECT_EQ(ConnectionDeadlines::TickFor(std::chrono::milliseconds(60'000)),
            std::chrono::milliseconds(100));
  EXPECT_EQ(ConnectionDeadlines::TickFor(std::chrono::milliseconds(300)),
            std::chrono::milliseconds(30));
  EXPECT_EQ(ConnectionDeadlines::TickFor(std::chrono::milliseconds(50)),
            std::chrono::milliseconds(10));
}

}  // namespace
}  // namespace verdict
