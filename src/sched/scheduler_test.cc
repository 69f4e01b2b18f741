#include "sched/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"
namespace verdict {
namespace {

// Collects what the workers ran, and lets a test wait for a count.
struct Recorder {
  Mutex mu;
  CondVar cv;
  std::vector<std::pair<int, bool>> runs GUARDED_BY(mu);  // (tag, fallback)

  Scheduler::Work Tag(int tag) {
    return [this, tag](bool fallback, int64_t) {
      MutexLock lock(mu);
      runs.emplace_back(tag, fallback);
      cv.SignalAll();
    };
  }
  // What ran, in order (a copy taken under the lock).
  std::vector<std::pair<int, bool>> Runs() {
    MutexLock lock(mu);
    return runs;
  }
  // The tags in the order they ran.
  std::vector<int> Order() {
    MutexLock lock(mu);
    std::vector<int> order;
    for (const auto& [tag, fallback] : runs) order.push_back(tag);
    return order;
  }
  // Bounded, so that a test whose count never comes fails rather than hangs.
  void WaitFor(size_t n) {
    MutexLock lock(mu);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (runs.size() < n && cv.WaitUntil(mu, deadline)) {
    }
    ASSERT_GE(runs.size(), n) << runs.size() << " of " << n << " ran";
  }
};

TEST(SchedulerTest, RunsEverythingSubmittedWithoutFallbackWhenThereIsTime) {
  ManualClock clock(1'000'000);
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 2;
  Scheduler scheduler(options, clock, metrics);
  Recorder recorder;
  const int64_t now = clock.MonotonicNanos() / 1000;
  for (int i = 0; i < 100; ++i) {
    Priority p = static_cast<Priority>(i % 3);
    ASSERT_EQ(scheduler.Submit(p, std::nullopt, now, recorder.Tag(i)),
              Scheduler::Admission::kQueued);
  }
  recorder.WaitFor(100);
  for (const auto& [tag, fallback] : recorder.Runs()) EXPECT_FALSE(fallback) << tag;
  EXPECT_NE(metrics.RenderPrometheus().find("verdict_sched_batch_size_count"), std::string::npos);
}

TEST(SchedulerTest, RequestThatCannotMeetItsDeadlineTakesTheFallbackPath) {
  ManualClock clock(1'000'000);
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  options.ewma_alpha = 1.0;  // the estimate is the last sample
  Scheduler scheduler(options, clock, metrics);
  scheduler.estimator().RecordFull(30'000);  // the full path now takes 30 ms
  Recorder recorder;
  const int64_t now = clock.MonotonicNanos() / 1000;
  // 20 ms left: the full path no longer fits. 200 ms left: it does.
  scheduler.Submit(Priority::kRealtime, 20, now, recorder.Tag(1));
  scheduler.Submit(Priority::kStandard, std::nullopt, now, recorder.Tag(2));
  recorder.WaitFor(2);
  const std::vector<std::pair<int, bool>> runs = recorder.Runs();
  std::map<int, bool> fallback(runs.begin(), runs.end());
  EXPECT_TRUE(fallback[1]);
  EXPECT_FALSE(fallback[2]);
}

TEST(SchedulerTest, ExpiredRequestIsStillAnsweredOnTheFallbackPath) {
  ManualClock clock(10'000'000);
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  Scheduler scheduler(options, clock, metrics);
  Recorder recorder;
  const int64_t long_ago = clock.MonotonicNanos() / 1000 - 5'000'000;
  scheduler.Submit(Priority::kStandard, std::nullopt, long_ago, recorder.Tag(7));
  recorder.WaitFor(1);
  EXPECT_EQ(recorder.Runs()[0], std::make_pair(7, true));
  EXPECT_NE(metrics.RenderPrometheus().find("verdict_sched_late_total 1"), std::string::npos);
}

// A one-shot signal between a test and a worker, bounded both ways so that a regression fails
// instead of hanging (the worker goes on after the bound; the test's check then fails).
struct Gate {
  std::promise<void> promise;
  std::shared_future<void> future = promise.get_future().share();
  void Open() { promise.set_value(); }
  bool Wait() const {
    return future.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  }
};

// Work that says it started, waits to be released, then does `then`.
Scheduler::Work Blocking(Gate& started, Gate& release, std::function<void()> then) {
  return [&started, &release, then = std::move(then)](bool, int64_t) {
    started.Open();
    release.Wait();
    then();
  };
}

// A worker takes two queued bulk items (tags 1 and 2) as one batch after a first (0); a request
// of `arriving`'s class (3) arrives while it works on item 1. The order in which they ran.
std::vector<int> OrderWhenArrivingDuringABulkBatch(Priority arriving, bool standard_may_preempt) {
  ManualClock clock(1'000'000);
  MetricsRegistry metrics;
  Recorder recorder;
  Gate first_started, release_first, a_started, release_a;
  SchedulerOptions options;
  options.workers = 1;
  options.classes[1].may_preempt = standard_may_preempt;
  Scheduler scheduler(options, clock, metrics);  // last: stopped before what its work uses
  const int64_t now = clock.MonotonicNanos() / 1000;
  scheduler.Submit(Priority::kBulk, std::nullopt, now,
                   Blocking(first_started, release_first, [&] { recorder.Tag(0)(false, 0); }));
  EXPECT_TRUE(first_started.Wait());  // the worker is busy: what follows queues up
  scheduler.Submit(Priority::kBulk, std::nullopt, now,
                   Blocking(a_started, release_a, [&] { recorder.Tag(1)(false, 0); }));
  scheduler.Submit(Priority::kBulk, std::nullopt, now, recorder.Tag(2));
  release_first.Open();
  EXPECT_TRUE(a_started.Wait());  // the worker took both queued items as one batch
  scheduler.Submit(arriving, std::nullopt, now, recorder.Tag(3));
  release_a.Open();
  recorder.WaitFor(4);
  // Each class's waiting count is back to zero, whichever class was taken ahead.
  const std::string rendered = metrics.RenderPrometheus();
  for (const char* cls : {"realtime", "standard", "bulk"}) {
    EXPECT_NE(rendered.find("verdict_sched_queue_depth{class=\"" + std::string(cls) + "\"} 0\n"),
              std::string::npos)
        << cls << "\n"
        << rendered;
  }
  return recorder.Order();
}

TEST(SchedulerTest, RealtimeThatArrivesDuringABatchRunsBeforeItsNextItem) {
  EXPECT_EQ(OrderWhenArrivingDuringABulkBatch(Priority::kRealtime, false),
            (std::vector<int>{0, 1, 3, 2}));
}

// With standard_may_preempt, a standard request goes ahead of the rest of a bulk batch; by
// default it waits for it (only realtime preempts).
TEST(SchedulerTest, StandardPreemptsABulkBatchOnlyWhenConfiguredTo) {
  EXPECT_EQ(OrderWhenArrivingDuringABulkBatch(Priority::kStandard, false),
            (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(OrderWhenArrivingDuringABulkBatch(Priority::kStandard, true),
            (std::vector<int>{0, 1, 3, 2}));
}

// A batch request is one queued item; its work calls RunArrivedPreemptors between its own
// transactions, which runs a realtime request queued meanwhile there and then.
TEST(SchedulerTest, WorkOfANonPreemptingClassCanLetArrivedRealtimeRunFirst) {
  ManualClock clock(1'000'000);
  MetricsRegistry metrics;
  Recorder recorder;
  Gate started, release;
  SchedulerOptions options;
  options.workers = 1;
  Scheduler scheduler(options, clock, metrics);  // last: stopped before what its work uses
  const int64_t now = clock.MonotonicNanos() / 1000;
  scheduler.Submit(Priority::kBulk, std::nullopt, now, Blocking(started, release, [&] {
                     scheduler.RunArrivedPreemptors(Priority::kRealtime);  // never interrupted
                     recorder.Tag(1)(false, 0);
                     scheduler.RunArrivedPreemptors(Priority::kBulk);
                     recorder.Tag(2)(false, 0);
                   }));
  ASSERT_TRUE(started.Wait());
  scheduler.Submit(Priority::kRealtime, std::nullopt, now, recorder.Tag(9));
  release.Open();
  recorder.WaitFor(3);
  EXPECT_EQ(recorder.Order(), (std::vector<int>{1, 9, 2}));
}

// One worker behind a journal backlog over its limit until the test clears it.
struct HeldBack {
  explicit HeldBack(bool standard_may_preempt) {
    options.workers = 1;
    options.classes[1].may_preempt = standard_may_preempt;
    options.downstream_limit = 10;
    options.downstream_backlog = [this] { return backlog.load(); };
    scheduler.emplace(options, clock, metrics);
  }
  void Submit(Priority priority, int tag) {
    scheduler->Submit(priority, std::nullopt, clock.MonotonicNanos() / 1000, recorder.Tag(tag));
  }

  ManualClock clock{1'000'000};
  MetricsRegistry metrics;
  std::atomic<size_t> backlog{1'000};
  SchedulerOptions options;
  Recorder recorder;
  std::optional<Scheduler> scheduler;  // last: stopped before what its work uses
};

TEST(SchedulerTest, DownstreamBacklogHoldsBackAllButRealtimeUntilItDrains) {
  HeldBack held(/*standard_may_preempt=*/false);
  for (int i = 0; i < 5; ++i) held.Submit(Priority::kBulk, i);
  held.Submit(Priority::kStandard, 5);
  held.Submit(Priority::kRealtime, 6);
  held.recorder.WaitFor(1);
  {
    MutexLock lock(held.recorder.mu);
    ASSERT_EQ(held.recorder.runs.size(), 1u);  // the realtime one only
    EXPECT_EQ(held.recorder.runs[0].first, 6);
  }
  EXPECT_EQ(held.scheduler->queued(), 6u);
  held.backlog = 0;  // the journal caught up: the rest runs, standard first
  held.recorder.WaitFor(7);
  EXPECT_EQ(held.recorder.Order()[1], 5);
}

TEST(SchedulerTest, DownstreamBacklogLetsEveryPreemptingClassThrough) {
  HeldBack held(/*standard_may_preempt=*/true);
  for (int i = 0; i < 3; ++i) held.Submit(Priority::kBulk, i);
  // Realtime first: the worker may take each as soon as it is queued.
  held.Submit(Priority::kRealtime, 6);
  held.Submit(Priority::kStandard, 5);
  held.recorder.WaitFor(2);
  EXPECT_EQ(held.recorder.Order(), (std::vector<int>{6, 5}));
  EXPECT_EQ(held.scheduler->queued(), 3u);  // bulk held back
  held.backlog = 0;
  held.recorder.WaitFor(5);
}

TEST(SchedulerTest, FifoModeIgnoresTheDownstreamBacklog) {
  ManualClock clock(1'000'000);
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  options.fifo = true;
  options.downstream_limit = 1;
  options.downstream_backlog = [] { return size_t{1'000}; };
  Scheduler scheduler(options, clock, metrics);
  Recorder recorder;
  const int64_t now = clock.MonotonicNanos() / 1000;
  for (int i = 0; i < 3; ++i) scheduler.Submit(Priority::kBulk, std::nullopt, now, recorder.Tag(i));
  recorder.WaitFor(3);
}

// Work items that block until the test releases them, in tag order.
struct Stepper {
  Mutex mu;
  CondVar cv;
  std::vector<int> started GUARDED_BY(mu);
  int released_through GUARDED_BY(mu) = -1;

  Scheduler::Work Step(int tag) {
    return [this, tag](bool, int64_t) {
      MutexLock lock(mu);
      started.push_back(tag);
      cv.SignalAll();
      while (released_through < tag) cv.Wait(mu);
    };
  }
  void WaitStarted(size_t n) {
    MutexLock lock(mu);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (started.size() < n && cv.WaitUntil(mu, deadline)) {
    }
    ASSERT_GE(started.size(), n);
  }
  void Release(int through) {
    MutexLock lock(mu);
    released_through = through;
    cv.SignalAll();
  }
};

// One worker taking one request at a time, that has measured a drain of 10 ms per transaction
// (step 1 taken with steps 2 and 3 waiting, step 2 ten milliseconds later) and now holds step 2,
// with step 3 queued.
class MeasuredDrainTest : public ::testing::Test {
 protected:
  void Start(bool fifo, size_t bulk_queue_capacity) {
    SchedulerOptions options;
    options.workers = 1;
    options.max_batch = 1;
    options.fifo = fifo;
    options.bulk_queue_capacity = bulk_queue_capacity;
    scheduler_.emplace(options, clock_, metrics_);
    ASSERT_EQ(SubmitBulk(now(), stepper_.Step(0)), Scheduler::Admission::kQueued);
    stepper_.WaitStarted(1);
    for (int i = 1; i <= 3; ++i) {
      ASSERT_EQ(SubmitBulk(now(), stepper_.Step(i)), Scheduler::Admission::kQueued);
    }
    clock_.AdvanceMicros(10'000);
    stepper_.Release(0);
    stepper_.WaitStarted(2);
    clock_.AdvanceMicros(10'000);
    stepper_.Release(1);
    stepper_.WaitStarted(3);
    EXPECT_NE(metrics_.RenderPrometheus().find("verdict_sched_drain_per_transaction_us 10000\n"),
              std::string::npos);
  }
  // Releases every step before the scheduler's destructor waits for its worker, also when a
  // test failed early.
  void TearDown() override {
    stepper_.Release(std::numeric_limits<int>::max());
    scheduler_.reset();
  }
  int64_t now() const { return clock_.MonotonicNanos() / 1000; }
  Scheduler::Admission SubmitBulk(int64_t received_us, Scheduler::Work work, uint32_t cost = 1) {
    return scheduler_->Submit(Priority::kBulk, std::nullopt, received_us, std::move(work),
                              {kDefaultTenantId, cost});
  }
  // Queues `n` bulk requests received now, tagged 0..n-1.
  void QueueBulk(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(SubmitBulk(now(), recorder_.Tag(i)), Scheduler::Admission::kQueued) << i;
    }
  }

  ManualClock clock_{10'000'000};
  MetricsRegistry metrics_;
  Stepper stepper_;
  Recorder recorder_;
  std::optional<Scheduler> scheduler_;
};

TEST_F(MeasuredDrainTest, BulkRequestThatWouldWaitPastItsDeadlineIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(/*fifo=*/false, 8'192));
  // A bulk request's 2 s fit behind 199 queued transactions (1.99 s plus the fallback path's
  // 20 µs), step 3 among them, not behind 200; the fixed capacity (8,192) is far away.
  QueueBulk(199);
  EXPECT_EQ(SubmitBulk(now(), recorder_.Tag(199)), Scheduler::Admission::kBulkWouldBeLate);
  // One already past its deadline is left to the fallback path, as ever.
  EXPECT_EQ(SubmitBulk(now() - 3'000'000, recorder_.Tag(300)), Scheduler::Admission::kQueued);
  // A batch counts each transaction: after 50 more (received "later", so that they fit: 2.01 s
  // of wait, 1 ms of fallback path, 2.6 s of deadline), a request with 2.5 s left waits 2.51 s.
  // Counted as one queued item, the batch would have let it in (2.02 s).
  EXPECT_EQ(SubmitBulk(now() + 600'000, recorder_.Tag(301), 50), Scheduler::Admission::kQueued);
  EXPECT_EQ(SubmitBulk(now() + 500'000, recorder_.Tag(302)),
            Scheduler::Admission::kBulkWouldBeLate);
  // Other classes are never refused by it.
  EXPECT_EQ(scheduler_->Submit(Priority::kStandard, std::nullopt, now(), recorder_.Tag(303)),
            Scheduler::Admission::kQueued);
  EXPECT_EQ(scheduler_->Submit(Priority::kRealtime, std::nullopt, now(), recorder_.Tag(304)),
            Scheduler::Admission::kQueued);
  EXPECT_NE(metrics_.RenderPrometheus().find("verdict_sched_refused_total{class=\"bulk\"} 2\n"),
            std::string::npos);
  stepper_.Release(3);
  recorder_.WaitFor(203);
  MutexLock lock(recorder_.mu);
  EXPECT_EQ(recorder_.runs.size(), 203u);
}

// A bulk refusal's Retry-After: how long until the backlog, drained at its measured rate (10 ms
// per transaction here), would leave a bulk request its 2 s; at most a minute.
TEST_F(MeasuredDrainTest, BulkRetryAfterIsTheBacklogsDrainBeyondTheBulkDeadline) {
  ASSERT_NO_FATAL_FAILURE(Start(/*fifo=*/false, 8'192));
  QueueBulk(149);  // with step 3: 1.5 s to drain, within the deadline
  EXPECT_EQ(scheduler_->BulkRetryAfterUs(), 0);
  EXPECT_EQ(Scheduler::RetryAfterSeconds(scheduler_->BulkRetryAfterUs()), 1);
  // A batch of 100 received 10 s "later" fits its own deadline: 2.5 s to drain, 0.5 s over.
  ASSERT_EQ(SubmitBulk(now() + 10'000'000, recorder_.Tag(149), 100), Scheduler::Admission::kQueued);
  EXPECT_EQ(scheduler_->BulkRetryAfterUs(), 500'000);
  // 6,000 more: a minute and more over, so a minute.
  ASSERT_EQ(SubmitBulk(now() + 100'000'000, recorder_.Tag(150), 6'000),
            Scheduler::Admission::kQueued);
  EXPECT_EQ(scheduler_->BulkRetryAfterUs(), Scheduler::kMaxBulkRetryAfterUs);
  stepper_.Release(3);
  recorder_.WaitFor(151);
}

TEST(SchedulerTest, NoBulkRetryAfterBeforeABacklogIsMeasured) {
  ManualClock clock(10'000'000);
  MetricsRegistry metrics;
  Scheduler scheduler(SchedulerOptions{}, clock, metrics);
  EXPECT_EQ(scheduler.BulkRetryAfterUs(), 0);
  EXPECT_EQ(Scheduler::RetryAfterSeconds(scheduler.BulkRetryAfterUs()), 1);
}

// A backlog that ran empty is not carried into the next: its 10 ms per transaction, applied to
// the 299 queued behind step 4, would say about a second.
TEST_F(MeasuredDrainTest, NoBulkRetryAfterFromABacklogThatRanEmpty) {
  ASSERT_NO_FATAL_FAILURE(Start(/*fifo=*/false, 8'192));
  stepper_.Release(3);  // steps 2 and 3 finish: the queue runs empty
  ASSERT_EQ(SubmitBulk(now(), stepper_.Step(4)), Scheduler::Admission::kQueued);
  stepper_.WaitStarted(5);
  QueueBulk(299);
  EXPECT_EQ(scheduler_->BulkRetryAfterUs(), 0);
  stepper_.Release(4);
  recorder_.WaitFor(299);
}

TEST_F(MeasuredDrainTest, FifoModeRefusesBulkOnlyAtItsCapacity) {
  ASSERT_NO_FATAL_FAILURE(Start(/*fifo=*/true, 300));
  // Step 3 and 299 more fill the capacity; the estimate (3 s of wait) refuses none of them.
  QueueBulk(299);
  EXPECT_EQ(SubmitBulk(now(), recorder_.Tag(299)), Scheduler::Admission::kBulkFull);
  stepper_.Release(3);
  recorder_.WaitFor(299);
}

TEST(SchedulerTest, DeadlineMayBeShortenedNotLengthened) {
  ManualClock clock;
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  Scheduler scheduler(options, clock, metrics);
  EXPECT_EQ(scheduler.DeadlineFor(Priority::kStandard, std::nullopt, 0), 200'000);
  EXPECT_EQ(scheduler.DeadlineFor(Priority::kStandard, 20, 0), 20'000);
  EXPECT_EQ(scheduler.DeadlineFor(Priority::kRealtime, 10'000, 0), 50'000);
}

TEST(SchedulerTest, StopRunsWhatIsQueuedThenRefuses) {
  ManualClock clock;
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  Recorder recorder;
  {
    Scheduler scheduler(options, clock, metrics);
    for (int i = 0; i < 50; ++i)
      scheduler.Submit(Priority::kBulk, std::nullopt, 0, recorder.Tag(i));
    scheduler.Stop();
    EXPECT_EQ(scheduler.Submit(Priority::kBulk, std::nullopt, 0, recorder.Tag(99)),
              Scheduler::Admission::kStopping);
  }
  EXPECT_EQ(recorder.Runs().size(), 50u);
}

TEST(SchedulerTest, TenantOverItsRateLimitIsRefusedWithTheTimeUntilItsNextToken) {
  ManualClock clock(1'000'000);
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  options.tenants = {{"metered", 1, /*rate_per_s=*/10, /*burst=*/2}};
  Scheduler scheduler(options, clock, metrics);
  const TenantId metered = scheduler.TenantFor("metered");
  Recorder recorder;
  const int64_t now = clock.MonotonicNanos() / 1000;
  auto submit = [&](TenantId tenant, uint32_t cost = 1) {
    return scheduler.Submit(Priority::kStandard, std::nullopt, now, recorder.Tag(0),
                            {tenant, cost});
  };
  EXPECT_EQ(submit(metered), Scheduler::Admission::kQueued);
  EXPECT_EQ(submit(metered), Scheduler::Admission::kQueued);
  EXPECT_EQ(submit(metered), Scheduler::Admission::kRateLimited);
  EXPECT_EQ(scheduler.RetryAfterUs(metered), 100'000);
  EXPECT_EQ(Scheduler::RetryAfterSeconds(scheduler.RetryAfterUs(metered)), 1);
  // Other tenants are not limited by it.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(submit(kDefaultTenantId), Scheduler::Admission::kQueued);
  clock.AdvanceMicros(100'000);
  EXPECT_EQ(scheduler.RetryAfterUs(metered), 0);
  EXPECT_EQ(submit(metered), Scheduler::Admission::kQueued);
  recorder.WaitFor(23);
  EXPECT_NE(
      metrics.RenderPrometheus().find("verdict_sched_rate_limited_total{tenant=\"metered\"} 1"),
      std::string::npos)
      << metrics.RenderPrometheus();
}

TEST(SchedulerTest, WorkerServesTenantsByWeightWhileOneFloods) {
  ManualClock clock(1'000'000);
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  options.tenants = {{"flood", 1, 0, 0}, {"steady", 1, 0, 0}};
  Scheduler scheduler(options, clock, metrics);
  const TenantId flood = scheduler.TenantFor("flood");
  const TenantId steady = scheduler.TenantFor("steady");
  // Hold the only worker so that everything below queues up before it is served.
  Mutex gate_mu;
  CondVar gate_cv;
  bool started = false, open = false;  // under gate_mu
  scheduler.Submit(Priority::kStandard, std::nullopt, 1'000'000, [&](bool, int64_t) {
    MutexLock lock(gate_mu);
    started = true;
    gate_cv.SignalAll();
    while (!open) gate_cv.Wait(gate_mu);
  });
  {
    MutexLock lock(gate_mu);
    while (!started) gate_cv.Wait(gate_mu);
  }
  Recorder recorder;
  for (int i = 0; i < 500; ++i) {
    ASSERT_EQ(
        scheduler.Submit(Priority::kStandard, std::nullopt, 1'000'000, recorder.Tag(1), {flood, 1}),
        Scheduler::Admission::kQueued);
  }
  for (int i = 0; i < 100; ++i) {
    scheduler.Submit(Priority::kStandard, std::nullopt, 1'000'000, recorder.Tag(2), {steady, 1});
  }
  {
    MutexLock lock(gate_mu);
    open = true;
  }
  gate_cv.SignalAll();
  recorder.WaitFor(600);
  // Equal weights: the steady tenant's 100 are served within the first ~200, not after the
  // flood's 500.
  const std::vector<int> order = recorder.Order();
  int steady_in_first_200 = 0;
  for (size_t i = 0; i < 200; ++i) steady_in_first_200 += order[i] == 2;
  EXPECT_GE(steady_in_first_200, 99);
}

}  // namespace
}  // namespace verdict
