// Scheduler with inline_when_idle on an event-loop thread: what the loop has read is queued,
// then run from the loop by priority, one request per turn of the loop.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/event_loop.h"
#include "sched/scheduler.h"

namespace verdict {
namespace {

// A loop the test turns by hand, installed on the test thread for its lifetime.
class HandLoop : public EventLoop {
 public:
  HandLoop() { EventLoop::SetCurrent(this); }
  ~HandLoop() override { EventLoop::SetCurrent(nullptr); }
  void Post(std::function<void()> work) override {
    std::lock_guard lock(mu_);
    posted_.push_back(std::move(work));
  }
  // Runs the oldest posted work; false when none was posted.
  bool RunOne() {
    std::function<void()> work;
    {
      std::lock_guard lock(mu_);
      if (posted_.empty()) return false;
      work = std::move(posted_.front());
      posted_.pop_front();
    }
    work();
    return true;
  }
  // Runs posted work until none is left (bounded: a drain that never ends fails the test).
  int RunAll() {
    int turns = 0;
    while (turns < 1000 && RunOne()) ++turns;
    return turns;
  }
  size_t posted() const {
    std::lock_guard lock(mu_);
    return posted_.size();
  }

 private:
  mutable std::mutex mu_;
  std::deque<std::function<void()>> posted_;
};

bool WaitUntilIdle(const Scheduler& scheduler) {
  for (int i = 0; i < 5000; ++i) {
    if (scheduler.idle_workers() == scheduler.worker_count()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

SchedulerOptions OneWorkerInline(std::function<size_t()> backlog = [] { return size_t{0}; }) {
  SchedulerOptions options;
  options.workers = 1;
  options.inline_when_idle = true;
  options.downstream_backlog = std::move(backlog);
  return options;
}

int64_t NowUs() { return SystemClock::Instance().MonotonicNanos() / 1000; }

// Records the order in which submitted requests ran, and on which thread.
class Runs {
 public:
  Scheduler::Admission Submit(Scheduler& scheduler, Priority priority, std::string name) {
    return scheduler.Submit(priority, std::nullopt, NowUs(), [this, name](bool, int64_t) {
      std::lock_guard lock(mu_);
      order_.push_back(name);
      threads_.push_back(std::this_thread::get_id());
    });
  }
  std::vector<std::string> order() const {
    std::lock_guard lock(mu_);
    return order_;
  }
  std::vector<std::thread::id> threads() const {
    std::lock_guard lock(mu_);
    return threads_;
  }
  // Waits (bounded) until `n` have run.
  bool WaitFor(size_t n) const {
    for (int i = 0; i < 5000; ++i) {
      if (order().size() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> order_;
  std::vector<std::thread::id> threads_;
};

TEST(SchedulerLoopTest, WhatTheLoopReadTogetherRunsMostUrgentFirstOnTheLoop) {
  Runs runs;  // before the scheduler, which runs what is still queued when destroyed
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  ASSERT_EQ(runs.Submit(scheduler, Priority::kBulk, "bulk 1"), Scheduler::Admission::kQueued);
  ASSERT_EQ(runs.Submit(scheduler, Priority::kBulk, "bulk 2"), Scheduler::Admission::kQueued);
  ASSERT_EQ(runs.Submit(scheduler, Priority::kStandard, "standard"), Scheduler::Admission::kQueued);
  ASSERT_EQ(runs.Submit(scheduler, Priority::kRealtime, "realtime"), Scheduler::Admission::kQueued);
  EXPECT_TRUE(runs.order().empty());  // nothing ran inside Submit
  EXPECT_EQ(loop.posted(), 1u);       // one drain for all four
  EXPECT_EQ(loop.RunAll(), 4);
  EXPECT_EQ(runs.order(), (std::vector<std::string>{"realtime", "standard", "bulk 1", "bulk 2"}));
  for (std::thread::id id : runs.threads()) EXPECT_EQ(id, std::this_thread::get_id());
  EXPECT_EQ(scheduler.queued(), 0u);
}

TEST(SchedulerLoopTest, WhatTheLoopReadsBetweenTwoRunsJoinsTheQueueBeforeTheNext) {
  Runs runs;  // before the scheduler, which runs what is still queued when destroyed
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  runs.Submit(scheduler, Priority::kBulk, "bulk 1");
  runs.Submit(scheduler, Priority::kBulk, "bulk 2");
  ASSERT_TRUE(loop.RunOne());
  EXPECT_EQ(runs.order(), (std::vector<std::string>{"bulk 1"}));
  runs.Submit(scheduler, Priority::kRealtime, "realtime");
  EXPECT_EQ(loop.posted(), 1u);  // joined the drain already posted
  loop.RunAll();
  EXPECT_EQ(runs.order(), (std::vector<std::string>{"bulk 1", "realtime", "bulk 2"}));
}

TEST(SchedulerLoopTest, AnIdleLoopGetsANewDrainForTheNextRequest) {
  Runs runs;  // before the scheduler, which runs what is still queued when destroyed
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  runs.Submit(scheduler, Priority::kStandard, "first");
  EXPECT_EQ(loop.RunAll(), 1);  // the drain ends with the queue: nothing more is posted
  runs.Submit(scheduler, Priority::kStandard, "second");
  EXPECT_EQ(loop.RunAll(), 1);
  EXPECT_EQ(runs.order(), (std::vector<std::string>{"first", "second"}));
  for (std::thread::id id : runs.threads()) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(SchedulerLoopTest, AJournalBacklogOverItsLimitHandsTheQueueToTheWorker) {
  Runs runs;
  MetricsRegistry metrics;
  std::atomic<size_t> backlog{0};
  SchedulerOptions options = OneWorkerInline([&backlog] { return backlog.load(); });
  options.downstream_limit = 10;
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  runs.Submit(scheduler, Priority::kStandard, "a");
  runs.Submit(scheduler, Priority::kStandard, "b");
  backlog = 1'000;
  EXPECT_EQ(loop.RunAll(), 1);  // the drain looks, and hands over
  EXPECT_TRUE(runs.order().empty());
  backlog = 0;  // the worker, held back until now, takes both
  ASSERT_TRUE(runs.WaitFor(2));
  for (std::thread::id id : runs.threads()) EXPECT_NE(id, std::this_thread::get_id());
}

TEST(SchedulerLoopTest, ABatchSubmittedOnALoopGoesToTheWorker) {
  // A batch would hold the loop, and every connection it serves, for its whole length. It wakes
  // the worker itself; a drain that finds one queued first (a race this test does not force)
  // hands the queue over rather than take it.
  std::promise<std::thread::id> batch_ran_on;
  Runs runs;
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  runs.Submit(scheduler, Priority::kBulk, "single");
  ASSERT_EQ(
      scheduler.Submit(Priority::kRealtime, std::nullopt, NowUs(),
                       [&](bool, int64_t) { batch_ran_on.set_value(std::this_thread::get_id()); },
                       {.tenant = kDefaultTenantId, .cost = 20}),
      Scheduler::Admission::kQueued);
  loop.RunAll();
  std::future<std::thread::id> ran_on = batch_ran_on.get_future();
  ASSERT_EQ(ran_on.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_NE(ran_on.get(), std::this_thread::get_id());
  ASSERT_TRUE(runs.WaitFor(1));
}

TEST(SchedulerLoopTest, WhileTheDrainRunsARequestTheLoopsOtherThreadsDoNotWaitForIt) {
  // A server with several I/O threads shares one loop among them.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  Runs runs;
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  scheduler.Submit(Priority::kBulk, std::nullopt, NowUs(), [&](bool, int64_t) {
    started.set_value();
    released.wait();
  });
  std::thread other([&] {
    EventLoop::SetCurrent(&loop);
    loop.RunOne();  // the drain: runs the bulk request, which holds this thread
    EventLoop::SetCurrent(nullptr);
  });
  started.get_future().wait();
  runs.Submit(scheduler, Priority::kRealtime, "realtime");  // from this thread of the loop
  const bool ran = runs.WaitFor(1);                         // on the worker, meanwhile
  release.set_value();
  other.join();
  EXPECT_TRUE(ran);
  loop.RunAll();
}

TEST(SchedulerLoopTest, AJoiningRequestWakesAWorkerIdleBeyondTheDrainsShare) {
  Runs runs;
  MetricsRegistry metrics;
  SchedulerOptions options = OneWorkerInline();
  options.workers = 2;
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  runs.Submit(scheduler, Priority::kStandard, "first");   // the drain holds one worker's share
  runs.Submit(scheduler, Priority::kStandard, "second");  // the other worker is woken
  EXPECT_TRUE(runs.WaitFor(2));                           // without turning the loop
  loop.RunAll();
  EXPECT_EQ(runs.order().size(), 2u);
}

TEST(SchedulerLoopTest, AThrowingRunEndsTheDrainAndTheWorkerTakesTheRest) {
  Runs runs;  // before the scheduler, which runs what is still queued when destroyed
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  scheduler.Submit(Priority::kRealtime, std::nullopt, NowUs(),
                   [](bool, int64_t) { throw std::runtime_error("work failed"); });
  runs.Submit(scheduler, Priority::kStandard, "after the throw");
  EXPECT_THROW(loop.RunOne(), std::runtime_error);
  ASSERT_TRUE(runs.WaitFor(1));
  EXPECT_NE(runs.threads()[0], std::this_thread::get_id());
  // The loop is free again: its next request starts a drain of its own.
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  runs.Submit(scheduler, Priority::kStandard, "next");
  EXPECT_EQ(loop.RunAll(), 1);
  EXPECT_EQ(runs.threads().back(), std::this_thread::get_id());
}

TEST(SchedulerLoopTest, StopRunsWhatWaitsForADrainOnceAndTheLateDrainDoesNothing) {
  Runs runs;  // before the scheduler, which runs what is still queued when destroyed
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  runs.Submit(scheduler, Priority::kStandard, "queued");
  scheduler.Stop();
  EXPECT_EQ(runs.order(), (std::vector<std::string>{"queued"}));
  loop.RunAll();
  EXPECT_EQ(runs.order().size(), 1u);
}

TEST(SchedulerLoopTest, ALoopMadeWhereAStoppedOneWasGetsADrainOfItsOwn) {
  // A stopped loop never runs the drain posted to it; a later loop at the same address must
  // not be taken for it (its requests would then wait for a drain that never comes).
  Runs runs;
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  alignas(HandLoop) unsigned char storage[sizeof(HandLoop)];
  auto* stopped = new (storage) HandLoop;
  runs.Submit(scheduler, Priority::kStandard, "left in the stopped loop");
  EXPECT_EQ(stopped->posted(), 1u);
  stopped->~HandLoop();  // its drain never ran
  auto* later = new (storage) HandLoop;
  runs.Submit(scheduler, Priority::kRealtime, "on the later loop");
  // Not joined to the stale drain: with a request already queued it goes to the worker, which
  // is woken for it and takes both.
  EXPECT_TRUE(runs.WaitFor(2));
  later->RunAll();
  EXPECT_EQ(runs.order().size(), 2u);
  later->~HandLoop();
}

TEST(SchedulerLoopTest, TheFifoBaselineRunsInsideSubmitEvenOnALoop) {
  Runs runs;
  MetricsRegistry metrics;
  SchedulerOptions options = OneWorkerInline();
  options.fifo = true;
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;
  runs.Submit(scheduler, Priority::kBulk, "bulk");
  EXPECT_EQ(runs.order(), (std::vector<std::string>{"bulk"}));
  EXPECT_EQ(loop.posted(), 0u);
}

TEST(SchedulerLoopTest, OffTheLoopThreadTheIdleSchedulerStillRunsOnTheCaller) {
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorkerInline(), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  HandLoop loop;  // installed on this thread only
  Runs runs;
  std::thread other([&] { runs.Submit(scheduler, Priority::kStandard, "other thread"); });
  const std::thread::id other_id = other.get_id();
  other.join();
  ASSERT_EQ(runs.order().size(), 1u);  // ran inside its Submit
  EXPECT_EQ(runs.threads()[0], other_id);
  EXPECT_EQ(loop.posted(), 0u);
}

}  // namespace
}  // namespace verdict
