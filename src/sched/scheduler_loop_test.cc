// Scheduler with inline_when_idle on an event-loop thread: what the loop has read is queued,
// then run from the loop by priority, one request per turn of the loop.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/event_loop.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "sched/scheduler.h"
#include "sched/scheduler_test_util.h"

namespace verdict {
namespace {

using testing_util::WaitUntilIdle;

// A loop the test turns by hand, installed on the test thread for its lifetime.
class HandLoop : public EventLoop {
 public:
  HandLoop() { EventLoop::SetCurrent(this); }
  ~HandLoop() override { EventLoop::SetCurrent(nullptr); }
  void Post(std::function<void()> work) override EXCLUDES(mu_) {
    MutexLock lock(mu_);
    posted_.push_back(std::move(work));
  }
  // Runs the oldest posted work; false when none was posted.
  bool RunOne() EXCLUDES(mu_) {
    std::function<void()> work;
    {
      MutexLock lock(mu_);
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
  size_t posted() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return posted_.size();
  }

 private:
  mutable Mutex mu_;
  std::deque<std::function<void()>> posted_ GUARDED_BY(mu_);
};

// One worker and an inline-enabled scheduler, whose journal backlog `backlog` reports.
SchedulerOptions OneWorkerInline(std::function<size_t()> backlog = [] { return size_t{0}; }) {
  return testing_util::OneWorker(true, std::move(backlog));
}

int64_t NowUs() { return SystemClock::Instance().MonotonicNanos() / 1000; }

// Records the order in which submitted requests ran, and on which thread.
class Runs {
 public:
  Scheduler::Admission Submit(Scheduler& scheduler, Priority priority, std::string name) {
    return scheduler.Submit(priority, std::nullopt, NowUs(), [this, name](bool, int64_t) {
      MutexLock lock(mu_);
      order_.push_back(name);
      threads_.push_back(std::this_thread::get_id());
    });
  }
  std::vector<std::string> order() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return order_;
  }
  std::vector<std::thread::id> threads() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
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
  mutable Mutex mu_;
  std::vector<std::string> order_ GUARDED_BY(mu_);
  std::vector<std::thread::id> threads_ GUARDED_BY(mu_);
};

// Each test's record of runs, scheduler and loop, declared so that what the scheduler's work
// refers to outlives the scheduler, which runs what is still queued when destroyed (a failed
// assertion may leave requests queued).
class SchedulerLoopTest : public ::testing::Test {
 protected:
  // Starts the scheduler and waits for its workers; with_loop: a HandLoop on this thread.
  void Start(SchedulerOptions options = OneWorkerInline(), bool with_loop = true) {
    scheduler_ = std::make_unique<Scheduler>(options, SystemClock::Instance(), metrics_);
    ASSERT_TRUE(WaitUntilIdle(*scheduler_));
    if (with_loop) loop_.emplace();
  }
  Scheduler::Admission Submit(Priority priority, std::string name) {
    return runs_.Submit(*scheduler_, priority, std::move(name));
  }

  Runs runs_;
  MetricsRegistry metrics_;
  std::unique_ptr<Scheduler> scheduler_;
  std::optional<HandLoop> loop_;
};

TEST_F(SchedulerLoopTest, WhatTheLoopReadTogetherRunsMostUrgentFirstOnTheLoop) {
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_EQ(Submit(Priority::kBulk, "bulk 1"), Scheduler::Admission::kQueued);
  ASSERT_EQ(Submit(Priority::kBulk, "bulk 2"), Scheduler::Admission::kQueued);
  ASSERT_EQ(Submit(Priority::kStandard, "standard"), Scheduler::Admission::kQueued);
  ASSERT_EQ(Submit(Priority::kRealtime, "realtime"), Scheduler::Admission::kQueued);
  EXPECT_TRUE(runs_.order().empty());  // nothing ran inside Submit
  EXPECT_EQ(loop_->posted(), 1u);      // one drain for all four
  EXPECT_EQ(loop_->RunAll(), 4);
  EXPECT_EQ(runs_.order(), (std::vector<std::string>{"realtime", "standard", "bulk 1", "bulk 2"}));
  for (std::thread::id id : runs_.threads()) EXPECT_EQ(id, std::this_thread::get_id());
  EXPECT_EQ(scheduler_->queued(), 0u);
}

TEST_F(SchedulerLoopTest, WhatTheLoopReadsBetweenTwoRunsJoinsTheQueueBeforeTheNext) {
  ASSERT_NO_FATAL_FAILURE(Start());
  Submit(Priority::kBulk, "bulk 1");
  Submit(Priority::kBulk, "bulk 2");
  ASSERT_TRUE(loop_->RunOne());
  EXPECT_EQ(runs_.order(), (std::vector<std::string>{"bulk 1"}));
  Submit(Priority::kRealtime, "realtime");
  EXPECT_EQ(loop_->posted(), 1u);  // joined the drain already posted
  loop_->RunAll();
  EXPECT_EQ(runs_.order(), (std::vector<std::string>{"bulk 1", "realtime", "bulk 2"}));
}

TEST_F(SchedulerLoopTest, AnIdleLoopGetsANewDrainForTheNextRequest) {
  ASSERT_NO_FATAL_FAILURE(Start());
  Submit(Priority::kStandard, "first");
  EXPECT_EQ(loop_->RunAll(), 1);  // the drain ends with the queue: nothing more is posted
  Submit(Priority::kStandard, "second");
  EXPECT_EQ(loop_->RunAll(), 1);
  EXPECT_EQ(runs_.order(), (std::vector<std::string>{"first", "second"}));
  for (std::thread::id id : runs_.threads()) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST_F(SchedulerLoopTest, AJournalBacklogOverItsLimitHandsTheQueueToTheWorker) {
  auto backlog = std::make_shared<std::atomic<size_t>>(0);
  SchedulerOptions options = OneWorkerInline([backlog] { return backlog->load(); });
  options.downstream_limit = 10;
  ASSERT_NO_FATAL_FAILURE(Start(options));
  Submit(Priority::kStandard, "a");
  Submit(Priority::kStandard, "b");
  *backlog = 1'000;
  EXPECT_EQ(loop_->RunAll(), 1);  // the drain looks, and hands over
  EXPECT_TRUE(runs_.order().empty());
  *backlog = 0;  // the worker, held back until now, takes both
  ASSERT_TRUE(runs_.WaitFor(2));
  for (std::thread::id id : runs_.threads()) EXPECT_NE(id, std::this_thread::get_id());
}

TEST_F(SchedulerLoopTest, ABatchSubmittedOnALoopGoesToTheWorker) {
  // A batch would hold the loop, and every connection it serves, for its whole length. It wakes
  // the worker itself; a drain that finds one queued first (a race this test does not force)
  // hands the queue over rather than take it.
  ASSERT_NO_FATAL_FAILURE(Start());
  auto batch_ran_on = std::make_shared<std::promise<std::thread::id>>();
  std::future<std::thread::id> ran_on = batch_ran_on->get_future();
  Submit(Priority::kBulk, "single");
  ASSERT_EQ(scheduler_->Submit(Priority::kRealtime, std::nullopt, NowUs(),
                               [batch_ran_on](bool, int64_t) {
                                 batch_ran_on->set_value(std::this_thread::get_id());
                               },
                               {.tenant = kDefaultTenantId, .cost = 20}),
            Scheduler::Admission::kQueued);
  loop_->RunAll();
  ASSERT_EQ(ran_on.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_NE(ran_on.get(), std::this_thread::get_id());
  ASSERT_TRUE(runs_.WaitFor(1));
}

TEST_F(SchedulerLoopTest, WhileTheDrainRunsARequestTheLoopsOtherThreadsDoNotWaitForIt) {
  // A server with several I/O threads shares one loop among them.
  ASSERT_NO_FATAL_FAILURE(Start());
  auto release = std::make_shared<std::promise<void>>();
  std::shared_future<void> released = release->get_future().share();
  auto started = std::make_shared<std::promise<void>>();
  std::future<void> has_started = started->get_future();
  scheduler_->Submit(Priority::kBulk, std::nullopt, NowUs(), [started, released](bool, int64_t) {
    started->set_value();
    released.wait();
  });
  HandLoop& loop = *loop_;
  std::thread other([&loop] {
    EventLoop::SetCurrent(&loop);
    loop.RunOne();  // the drain: runs the bulk request, which holds this thread
    EventLoop::SetCurrent(nullptr);
  });
  has_started.wait();
  Submit(Priority::kRealtime, "realtime");  // from this thread of the loop
  const bool ran = runs_.WaitFor(1);        // on the worker, meanwhile
  release->set_value();
  other.join();
  EXPECT_TRUE(ran);
  loop_->RunAll();
}

TEST_F(SchedulerLoopTest, AJoiningRequestWakesAWorkerIdleBeyondTheDrainsShare) {
  SchedulerOptions options = OneWorkerInline();
  options.workers = 2;
  ASSERT_NO_FATAL_FAILURE(Start(options));
  Submit(Priority::kStandard, "first");   // the drain holds one worker's share
  Submit(Priority::kStandard, "second");  // the other worker is woken
  EXPECT_TRUE(runs_.WaitFor(2));          // without turning the loop
  loop_->RunAll();
  EXPECT_EQ(runs_.order().size(), 2u);
}

TEST_F(SchedulerLoopTest, AThrowingRunEndsTheDrainAndTheWorkerTakesTheRest) {
  ASSERT_NO_FATAL_FAILURE(Start());
  scheduler_->Submit(Priority::kRealtime, std::nullopt, NowUs(),
                     [](bool, int64_t) { throw std::runtime_error("work failed"); });
  Submit(Priority::kStandard, "after the throw");
  EXPECT_THROW(loop_->RunOne(), std::runtime_error);
  ASSERT_TRUE(runs_.WaitFor(1));
  EXPECT_NE(runs_.threads()[0], std::this_thread::get_id());
  // The loop is free again: its next request starts a drain of its own.
  ASSERT_TRUE(WaitUntilIdle(*scheduler_));
  Submit(Priority::kStandard, "next");
  EXPECT_EQ(loop_->RunAll(), 1);
  EXPECT_EQ(runs_.threads().back(), std::this_thread::get_id());
}

TEST_F(SchedulerLoopTest, StopRunsWhatWaitsForADrainOnceAndTheLateDrainDoesNothing) {
  ASSERT_NO_FATAL_FAILURE(Start());
  Submit(Priority::kStandard, "queued");
  scheduler_->Stop();
  EXPECT_EQ(runs_.order(), (std::vector<std::string>{"queued"}));
  loop_->RunAll();
  EXPECT_EQ(runs_.order().size(), 1u);
}

TEST_F(SchedulerLoopTest, ALoopMadeWhereAStoppedOneWasGetsADrainOfItsOwn) {
  // A stopped loop never runs the drain posted to it; a later loop at the same address must
  // not be taken for it (its requests would then wait for a drain that never comes).
  ASSERT_NO_FATAL_FAILURE(Start(OneWorkerInline(), /*with_loop=*/false));
  alignas(HandLoop) unsigned char storage[sizeof(HandLoop)];
  auto* stopped = new (storage) HandLoop;
  Submit(Priority::kStandard, "left in the stopped loop");
  EXPECT_EQ(stopped->posted(), 1u);
  stopped->~HandLoop();  // its drain never ran
  auto* later = new (storage) HandLoop;
  Submit(Priority::kRealtime, "on the later loop");
  // Not joined to the stale drain: with a request already queued it goes to the worker, which
  // is woken for it and takes both.
  EXPECT_TRUE(runs_.WaitFor(2));
  later->RunAll();
  EXPECT_EQ(runs_.order().size(), 2u);
  later->~HandLoop();
}

TEST_F(SchedulerLoopTest, TheFifoBaselineRunsInsideSubmitEvenOnALoop) {
  SchedulerOptions options = OneWorkerInline();
  options.fifo = true;
  ASSERT_NO_FATAL_FAILURE(Start(options));
  Submit(Priority::kBulk, "bulk");
  EXPECT_EQ(runs_.order(), (std::vector<std::string>{"bulk"}));
  EXPECT_EQ(loop_->posted(), 0u);
}

TEST_F(SchedulerLoopTest, OffTheLoopThreadTheIdleSchedulerStillRunsOnTheCaller) {
  ASSERT_NO_FATAL_FAILURE(Start());  // the loop is installed on this thread only
  std::thread other([this] { Submit(Priority::kStandard, "other thread"); });
  const std::thread::id other_id = other.get_id();
  other.join();
  ASSERT_EQ(runs_.order().size(), 1u);  // ran inside its Submit
  EXPECT_EQ(runs_.threads()[0], other_id);
  EXPECT_EQ(loop_->posted(), 0u);
}

}  // namespace
}  // namespace verdict
