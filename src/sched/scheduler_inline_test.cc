// Scheduler with inline_when_idle: which submissions run on the submitting thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "sched/scheduler.h"
#include "sched/scheduler_test_util.h"

namespace verdict {
namespace {

using testing_util::OneWorker;
using testing_util::WaitUntilIdle;

// Submits a standard request whose work reports the thread it ran on.
std::future<std::thread::id> SubmitReportingThread(Scheduler& scheduler, Priority priority) {
  auto ran_on = std::make_shared<std::promise<std::thread::id>>();
  std::future<std::thread::id> result = ran_on->get_future();
  const int64_t now = SystemClock::Instance().MonotonicNanos() / 1000;
  EXPECT_EQ(
      scheduler.Submit(priority, std::nullopt, now,
                       [ran_on](bool, int64_t) { ran_on->set_value(std::this_thread::get_id()); }),
      Scheduler::Admission::kQueued);
  return result;
}

TEST(SchedulerInlineTest, IdleSchedulerRunsTheWorkOnTheSubmittingThreadBeforeReturning) {
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorker(true), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  std::future<std::thread::id> ran_on = SubmitReportingThread(scheduler, Priority::kStandard);
  ASSERT_EQ(ran_on.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_EQ(ran_on.get(), std::this_thread::get_id());
  EXPECT_NE(metrics.RenderPrometheus().find("verdict_sched_batch_size_count 1"), std::string::npos);
}

TEST(SchedulerInlineTest, OffByDefaultTheWorkerRunsIt) {
  MetricsRegistry metrics;
  SchedulerOptions options;  // the defaults, but for one worker and an idle journal
  options.workers = 1;
  options.downstream_backlog = [] { return size_t{0}; };
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  EXPECT_NE(SubmitReportingThread(scheduler, Priority::kStandard).get(),
            std::this_thread::get_id());
}

TEST(SchedulerInlineTest, WhileAnInlineRunHoldsTheIdleWorkersShareTheNextGoesToTheWorker) {
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorker(true), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<std::thread::id> first_started;
  std::thread submitter([&] {
    const int64_t now = SystemClock::Instance().MonotonicNanos() / 1000;
    scheduler.Submit(Priority::kBulk, std::nullopt, now, [&](bool, int64_t) {
      first_started.set_value(std::this_thread::get_id());
      released.wait();
    });
  });
  const std::thread::id submitter_id = submitter.get_id();
  EXPECT_EQ(first_started.get_future().get(), submitter_id);  // ran inline, and still runs
  // The one worker's share is taken: this one is queued, and the worker runs it meanwhile.
  std::future<std::thread::id> second = SubmitReportingThread(scheduler, Priority::kStandard);
  const std::thread::id second_ran_on = second.get();
  EXPECT_NE(second_ran_on, std::this_thread::get_id());
  EXPECT_NE(second_ran_on, submitter_id);
  release.set_value();
  submitter.join();
}

TEST(SchedulerInlineTest, JournalBacklogOverItsLimitSendsEvenRealtimeThroughTheQueue) {
  MetricsRegistry metrics;
  SchedulerOptions options = OneWorker(true);
  options.downstream_limit = 10;
  options.downstream_backlog = [] { return size_t{1'000}; };
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  EXPECT_NE(SubmitReportingThread(scheduler, Priority::kRealtime).get(),
            std::this_thread::get_id());
}

TEST(SchedulerInlineTest, WithoutABacklogLimitTheWorkerRunsIt) {
  // The caller could otherwise block in the journal's own queue.
  MetricsRegistry metrics;
  SchedulerOptions options = OneWorker(true);
  options.downstream_limit = 0;
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  EXPECT_NE(SubmitReportingThread(scheduler, Priority::kStandard).get(),
            std::this_thread::get_id());
}

TEST(SchedulerInlineTest, ABatchGoesToTheWorker) {
  // A batch would hold the I/O thread, and every connection it serves, for its whole length.
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorker(true), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  std::promise<std::thread::id> ran_on;
  const int64_t now = SystemClock::Instance().MonotonicNanos() / 1000;
  ASSERT_EQ(
      scheduler.Submit(Priority::kStandard, std::nullopt, now,
                       [&ran_on](bool, int64_t) { ran_on.set_value(std::this_thread::get_id()); },
                       {.tenant = kDefaultTenantId, .cost = 20}),
      Scheduler::Admission::kQueued);
  EXPECT_NE(ran_on.get_future().get(), std::this_thread::get_id());
}

TEST(SchedulerInlineTest, StopWaitsForWhatRunsInline) {
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorker(true), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  std::atomic<bool> finished{false};
  std::thread submitter([&] {
    const int64_t now = SystemClock::Instance().MonotonicNanos() / 1000;
    scheduler.Submit(Priority::kStandard, std::nullopt, now, [&](bool, int64_t) {
      started.set_value();
      released.wait();
      finished = true;
    });
  });
  started.get_future().wait();
  std::atomic<bool> finished_when_stopped{false};
  std::thread stopper([&] {
    scheduler.Stop();
    finished_when_stopped = finished.load();
  });
  // Stop must not return while the work runs: give it time to do so wrongly, then release.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  release.set_value();
  stopper.join();
  submitter.join();
  EXPECT_TRUE(finished_when_stopped);
}

TEST(SchedulerInlineTest, AThrowingInlineRunGivesItsSlotBack) {
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorker(true), SystemClock::Instance(), metrics);
  ASSERT_TRUE(WaitUntilIdle(scheduler));
  const int64_t now = SystemClock::Instance().MonotonicNanos() / 1000;
  EXPECT_THROW(scheduler.Submit(Priority::kStandard, std::nullopt, now,
                                [](bool, int64_t) { throw std::runtime_error("work failed"); }),
               std::runtime_error);
  EXPECT_EQ(SubmitReportingThread(scheduler, Priority::kStandard).get(),
            std::this_thread::get_id());
}

TEST(SchedulerInlineTest, StoppedSchedulerRefusesRatherThanRunsInline) {
  MetricsRegistry metrics;
  Scheduler scheduler(OneWorker(true), SystemClock::Instance(), metrics);
  scheduler.Stop();
  std::atomic<bool> ran{false};
  EXPECT_EQ(
      scheduler.Submit(Priority::kStandard, std::nullopt, 0, [&ran](bool, int64_t) { ran = true; }),
      Scheduler::Admission::kStopping);
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace verdict
