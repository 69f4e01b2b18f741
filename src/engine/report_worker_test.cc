#include "engine/report_worker.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace verdict {
namespace {

TEST(ReportWorkerTest, RunsJobsInOrderOffTheCallersThread) {
  std::vector<int> order;
  std::promise<std::thread::id> ran_on;
  std::promise<void> done;
  {
    ReportWorker worker(4);
    ASSERT_TRUE(worker.Post([&](bool run) {
      ASSERT_TRUE(run);
      ran_on.set_value(std::this_thread::get_id());
      order.push_back(1);
    }));
    ASSERT_TRUE(worker.Post([&](bool run) {
      ASSERT_TRUE(run);
      order.push_back(2);
      done.set_value();
    }));
    done.get_future().wait();
  }
  EXPECT_NE(ran_on.get_future().get(), std::this_thread::get_id());
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(ReportWorkerTest, RefusesBeyondItsQueueAndTellsWaitingJobsOnStop) {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<bool> second;
  std::promise<bool> third;
  auto worker = std::make_unique<ReportWorker>(2);
  ASSERT_TRUE(worker->Post([&](bool run) {
    EXPECT_TRUE(run);
    started.set_value();
    released.wait();
  }));
  started.get_future().wait();  // the worker holds the first job; the queue is empty
  ASSERT_TRUE(worker->Post([&](bool run) { second.set_value(run); }));
  ASSERT_TRUE(worker->Post([&](bool run) { third.set_value(run); }));
  bool dropped_called = false;
  EXPECT_FALSE(worker->Post([&](bool) { dropped_called = true; }));
  // Stop while the first job still runs: the two waiting are told at once that they will not
  // run (the first cannot finish before they are), then the first finishes.
  std::thread stopper([&] { worker.reset(); });
  EXPECT_FALSE(second.get_future().get());
  EXPECT_FALSE(third.get_future().get());
  release.set_value();
  stopper.join();
  EXPECT_FALSE(dropped_called);
}

}  // namespace
}  // namespace verdict
