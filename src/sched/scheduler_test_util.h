// Helpers shared by the scheduler's tests (not part of the library): waiting for the workers to
// start, and the one-worker set-up of the inline tests. Test-only; no state of its own.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

#include "sched/scheduler.h"

namespace verdict::testing_util {

// Waits (bounded, 5 s) until every worker has started and waits for work.
inline bool WaitUntilIdle(const Scheduler& scheduler) {
  for (int i = 0; i < 5000; ++i) {
    if (scheduler.idle_workers() == scheduler.worker_count()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// One worker, and a journal behind it whose backlog `backlog` reports (idle by default; inline
// runs need a backlog limit).
inline SchedulerOptions OneWorker(
    bool inline_when_idle, std::function<size_t()> backlog = [] { return size_t{0}; }) {
  SchedulerOptions options;
  options.workers = 1;
  options.inline_when_idle = inline_when_idle;
  options.downstream_backlog = std::move(backlog);
  return options;
}

}  // namespace verdict::testing_util
