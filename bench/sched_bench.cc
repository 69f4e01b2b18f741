// Scheduler benchmarks of the request queue and of fair sharing between tenants, figures in
// docs/PERFORMANCE.md (Scheduler and load; Tenant fairness):
//  - BM_QueuePushPop: RequestQueue push + batch pop per item, one tenant (the path every
//    single-tenant deployment takes) and several tenants of different weights;
//  - BM_SchedulerRoundTrip: Submit -> worker runs an empty task, one tenant;
//  - BM_SchedulerIdleSubmit: one request at a time into an idle scheduler: handed to its
//    worker, run inline in Submit, or run inline from an event loop;
//  - BM_ConditionVariableHandOff: two threads passing a turn through a mutex and condition
//    variable, the primitive under every hand-off between the engine's threads (each turn is
//    a wake-up and a context switch); pin with taskset to one core or two;
//  - BM_NoisyTenant: two tenants of equal weight, one worker doing a fixed amount of work per
//    request; B offers its share (half the capacity), A floods at 5x its share or is idle.
//    Reports B's latency from intended arrival to completion (no coordinated omission),
//    with fair queueing by tenant (fair=1) or with both submitted as one tenant (fair=0: what
//    the scheduler did before tenants).
// Built with -DVERDICT_SCHED_BASELINE against the pre-tenant src/sched, only the single-tenant
// benchmarks compile: that is how the side-by-side figures in docs/PERFORMANCE.md were made.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/event_loop.h"
#include "common/metrics.h"
#include "sched/request_queue.h"
#include "sched/scheduler.h"

namespace verdict {
namespace {

void BM_QueuePushPop(benchmark::State& state) {
  const int tenants = static_cast<int>(state.range(0));
  const size_t depth = static_cast<size_t>(state.range(1));
  SchedulerOptions options;
  RequestQueue queue(options);
  int64_t now = 0;
  uint32_t next = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < depth; ++i) {
      QueuedItem item;
      item.priority = Priority::kStandard;
      item.enqueued_us = now;
      item.deadline_us = now + 200'000 + static_cast<int64_t>(i % 7);
#ifndef VERDICT_SCHED_BASELINE
      item.tenant = next++ % static_cast<uint32_t>(tenants);
      item.service = 1.0 / (1 + item.tenant % 3);
#else
      (void)next;
      (void)tenants;
#endif
      benchmark::DoNotOptimize(queue.Push(std::move(item)));
    }
    while (queue.size() > 0) benchmark::DoNotOptimize(queue.PopBatch(now, 64));
    ++now;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(depth));
}
#ifndef VERDICT_SCHED_BASELINE
BENCHMARK(BM_QueuePushPop)
    ->Args({1, 1})
    ->Args({1, 64})
    ->Args({1, 1024})
    ->Args({4, 1024})
    ->Args({16, 1024});
#else
BENCHMARK(BM_QueuePushPop)->Args({1, 1})->Args({1, 64})->Args({1, 1024});
#endif

// Submit from this thread, an empty task on one worker; waits for all to run.
void BM_SchedulerRoundTrip(benchmark::State& state) {
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  std::atomic<int64_t> done{0};
  int64_t submitted = 0;
  for (auto _ : state) {
    const int64_t now = SystemClock::Instance().MonotonicNanos() / 1000;
    for (int i = 0; i < 256; ++i) {
      auto admitted = scheduler.Submit(Priority::kStandard, std::nullopt, now,
                                       [&done](bool, int64_t) { done.fetch_add(1); });
      submitted += admitted == Scheduler::Admission::kQueued;
    }
    while (done.load() < submitted) std::this_thread::yield();
  }
  state.SetItemsProcessed(submitted);
}
BENCHMARK(BM_SchedulerRoundTrip)->UseRealTime();

// One request at a time into an idle scheduler, as a lightly loaded engine sees them: each
// submission waits for the previous one's work to have run. Arg 0: handed to the worker and
// waited for; 1: inline_when_idle, the work runs on this thread inside Submit; 2: the same on
// an event loop (this thread's, turned by hand here): Submit queues it and posts a drain, which
// the loop then runs. Arg 2 against 1 is what the scheduler adds for ordering what a loop has
// read; the loop's own turn (Asio's post, and one more non-blocking poll) is not in it. Real
// time.
class ListLoop : public EventLoop {
 public:
  void Post(std::function<void()> work) override { posted_.push_back(std::move(work)); }
  void RunAll() {
    while (!posted_.empty()) {
      std::function<void()> work = std::move(posted_.front());
      posted_.pop_front();
      work();
    }
  }

 private:
  std::deque<std::function<void()>> posted_;
};

void BM_SchedulerIdleSubmit(benchmark::State& state) {
  MetricsRegistry metrics;
  SchedulerOptions options;
  options.workers = 1;
  options.inline_when_idle = state.range(0) != 0;
  options.downstream_backlog = [] { return size_t{0}; };  // as the engine's journal, idle
  Scheduler scheduler(options, SystemClock::Instance(), metrics);
  ListLoop loop;
  if (state.range(0) == 2) EventLoop::SetCurrent(&loop);
  std::mutex mu;
  std::condition_variable cv;
  int64_t done = 0;
  int64_t submitted = 0;
  for (auto _ : state) {
    const int64_t now = SystemClock::Instance().MonotonicNanos() / 1000;
    auto admitted = scheduler.Submit(Priority::kStandard, std::nullopt, now, [&](bool, int64_t) {
      std::lock_guard lock(mu);
      ++done;
      cv.notify_one();
    });
    if (admitted != Scheduler::Admission::kQueued) {
      state.SkipWithError("not admitted");
      break;
    }
    ++submitted;
    loop.RunAll();
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done == submitted; });
  }
  EventLoop::SetCurrent(nullptr);
  state.SetItemsProcessed(submitted);
}
BENCHMARK(BM_SchedulerIdleSubmit)->ArgName("inline")->Arg(0)->Arg(1)->Arg(2)->UseRealTime();

// One hand-off per item: this thread gives the turn to a second thread, which gives it back.
// Reported per hand-off (two per round trip); real time, since the other thread's work is the
// point.
void BM_ConditionVariableHandOff(benchmark::State& state) {
  std::mutex mu;
  std::condition_variable cv;
  int turn = 0;  // 0: this thread's, 1: the partner's, 2: stop
  std::thread partner([&] {
    std::unique_lock lock(mu);
    while (true) {
      cv.wait(lock, [&] { return turn != 0; });
      if (turn == 2) return;
      turn = 0;
      lock.unlock();
      cv.notify_one();
      lock.lock();
    }
  });
  for (auto _ : state) {
    std::unique_lock lock(mu);
    turn = 1;
    lock.unlock();
    cv.notify_one();
    lock.lock();
    cv.wait(lock, [&] { return turn == 0; });
  }
  {
    std::lock_guard lock(mu);
    turn = 2;
  }
  cv.notify_one();
  partner.join();
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_ConditionVariableHandOff)->UseRealTime();

#ifndef VERDICT_SCHED_BASELINE
using SteadyClock = std::chrono::steady_clock;

void Spin(std::chrono::microseconds how_long) {
  const auto until = SteadyClock::now() + how_long;
  while (SteadyClock::now() < until) {
  }
}

int64_t Percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// Arguments: fair (0/1), flood (0/1). Service: 100 µs a request (20 µs on the fallback path),
// so one worker serves 10,000/s; each tenant's share is 5,000/s. B offers 5,000/s; A offers
// 25,000/s when flooding. 2 s of arrivals, the first 0.3 s not counted.
void BM_NoisyTenant(benchmark::State& state) {
  const bool fair = state.range(0) != 0;
  const bool flood = state.range(1) != 0;
  constexpr auto kService = std::chrono::microseconds(100);
  constexpr auto kFallbackService = std::chrono::microseconds(20);
  constexpr double kRateB = 5'000, kRateA = 25'000;
  constexpr auto kRun = std::chrono::milliseconds(2000);
  constexpr auto kWarm = std::chrono::milliseconds(300);
  for (auto _ : state) {
    MetricsRegistry metrics;
    SchedulerOptions options;
    options.workers = 1;
    options.max_batch = 8;
    options.tenants = {{"a", 1, 0, 0}, {"b", 1, 0, 0}};
    std::mutex mu;
    std::vector<int64_t> latency_b;
    int64_t served_a = 0, served_b = 0, fallback_b = 0, refused_a = 0;
    const auto start = SteadyClock::now();
    {
      Scheduler scheduler(options, SystemClock::Instance(), metrics);
      const TenantId a = fair ? scheduler.TenantFor("a") : kDefaultTenantId;
      const TenantId b = fair ? scheduler.TenantFor("b") : kDefaultTenantId;
      auto submit = [&](bool is_b, SteadyClock::time_point intended) {
        const int64_t received_us = SystemClock::Instance().MonotonicNanos() / 1000;
        const bool counted = intended - start >= kWarm;
        auto admitted = scheduler.Submit(
            Priority::kStandard, std::nullopt, received_us,
            [&, is_b, intended, counted](bool fallback, int64_t) {
              Spin(fallback ? kFallbackService : kService);
              if (!counted) return;
              const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                                     SteadyClock::now() - intended)
                                     .count();
              std::lock_guard lock(mu);
              if (is_b) {
                latency_b.push_back(us);
                ++served_b;
                fallback_b += fallback;
              } else {
                ++served_a;
              }
            },
            {is_b ? b : a, 1});
        if (admitted != Scheduler::Admission::kQueued && !is_b) ++refused_a;
      };
      // Open loop: every request at its intended time, whatever the worker does.
      const auto gap_a = std::chrono::duration<double>(1.0 / kRateA);
      const auto gap_b = std::chrono::duration<double>(1.0 / kRateB);
      auto next_a = std::chrono::duration<double>(0), next_b = std::chrono::duration<double>(0);
      const auto end = std::chrono::duration<double>(kRun);
      while (next_b < end || (flood && next_a < end)) {
        const auto now = SteadyClock::now() - start;
        bool issued = false;
        while (next_b < end && next_b <= now) {
          submit(true, start + std::chrono::duration_cast<SteadyClock::duration>(next_b));
          next_b += gap_b;
          issued = true;
        }
        while (flood && next_a < end && next_a <= now) {
          submit(false, start + std::chrono::duration_cast<SteadyClock::duration>(next_a));
          next_a += gap_a;
          issued = true;
        }
        if (!issued) std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
      scheduler.Stop();  // runs what is queued
    }
    const double window_s = std::chrono::duration<double>(kRun - kWarm).count();
    state.counters["b_p50_us"] = static_cast<double>(Percentile(latency_b, 0.50));
    state.counters["b_p99_us"] = static_cast<double>(Percentile(latency_b, 0.99));
    state.counters["b_max_us"] = static_cast<double>(Percentile(latency_b, 1.0));
    state.counters["b_fallback"] = static_cast<double>(fallback_b);
    state.counters["b_per_s"] = static_cast<double>(served_b) / window_s;
    state.counters["a_per_s"] = static_cast<double>(served_a) / window_s;
    state.counters["a_refused"] = static_cast<double>(refused_a);
  }
}
BENCHMARK(BM_NoisyTenant)
    ->ArgNames({"fair", "flood"})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

}  // namespace
}  // namespace verdict

BENCHMARK_MAIN();
