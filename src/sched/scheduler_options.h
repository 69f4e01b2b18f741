// Scheduling settings: one set per priority class plus the scheduler's own. Value types with
// documented defaults; read-only once the scheduler starts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace verdict {

// Batching never waits for a batch to fill (a worker takes what is queued), so no class
// waits to join a batch at all: per-class batching waits (such as 5, 50, 200 ms) are upper
// bounds this meets trivially.
struct ClassOptions {
  int64_t deadline_us;  // default deadline when a request sets none (a request may shorten it)
  // Its requests are taken ahead of the rest of a lower-class batch already being worked, and
  // while the journal's backlog holds workers back (SchedulerOptions::downstream_limit).
  // Bulk, the lowest class, has nothing below it to preempt.
  bool may_preempt;
};

struct CircuitBreakerOptions {
  int failures_to_open = 5;         // consecutive model failures or overruns that open it
  int64_t open_for_us = 1'000'000;  // how long it stays open before probing
  int probes_to_close = 3;          // consecutive good probes that close it again
  // A half-open probe that has not reported for this long is presumed lost (its decision ended
  // without reporting, e.g. by an exception) and another is let through. Far above any scoring
  // (model_budget_us is at most 10 s), so that a slow probe is never doubled.
  int64_t probe_lost_after_us = 60'000'000;
};

// [tenants.<name>]: one tenant's share of the engine. A tenant with no section gets weight 1 and
// no rate limit.
struct TenantOptions {
  std::string name;
  // Share of service within each priority class, relative to the other tenants with work
  // waiting (weighted fair queueing), and of the queue capacities.
  double weight = 1;
  double rate_per_s = 0;  // admitted requests per second (a batch counts each item); 0: no limit
  double burst = 0;       // requests at once from a full bucket; 0: one second's worth (>= 1)
};

struct SchedulerOptions {
  // Indexed by Priority: realtime, standard, bulk.
  std::array<ClassOptions, 3> classes = {{
      {50'000, true},
      {200'000, false},
      {2'000'000, false},
  }};
  size_t workers = 0;                  // 0: one per hardware thread
  size_t max_batch = 64;               // items a worker takes at once
  size_t queue_capacity = 65'536;      // realtime + standard waiting; beyond: 503 (never silent)
  size_t bulk_queue_capacity = 8'192;  // bulk waiting; beyond: 429 with Retry-After
  // A bulk item waiting this long is served with standard priority, so bulk is never starved.
  int64_t bulk_aging_us = 500'000;
  // Weight of the newest sample in the service-time averages.
  double ewma_alpha = 0.05;
  CircuitBreakerOptions breaker;
  // A single request (a submission of cost 1: also a batch with one transaction to decide)
  // that arrives while a worker is idle, nothing is queued and
  // the downstream backlog (below) is under its limit is decided on the submitting thread
  // instead of being handed to a worker: no wake-up, no two context switches, no cross-core
  // hand-off. On an event-loop thread (common/event_loop.h) it is decided from the loop, after
  // the other requests the loop has read meanwhile, most urgent first (Scheduler). Needs
  // downstream_backlog and a downstream_limit above 0. Off by default here (a caller that must
  // not block, or a test that holds its workers, would run the work itself); the engine's
  // [sched] inline_when_idle turns it on.
  bool inline_when_idle = false;
  // Plain FIFO across classes (no priorities, no deadline-driven fallback): only to measure
  // what the scheduler buys.
  bool fifo = false;
  // Configured tenants (weights and rate limits); the tenant named "default" may be among them.
  std::vector<TenantOptions> tenants;
  // Backpressure from the stage after the workers (the journal's queue of records not yet
  // durable). While it holds more than downstream_limit, workers take only preempting
  // (realtime) requests: the rest waits here, in deadline order and able to fall back, rather
  // than in the journal's arrival-ordered queue, where a realtime record would wait behind
  // every bulk record taken before it. Null or a limit of 0: off. Not applied in fifo mode.
  std::function<size_t()> downstream_backlog;
  size_t downstream_limit = 256;
  // How often a held-back worker looks at the backlog again (an arrival wakes it sooner).
  int64_t downstream_poll_us = 200;
};

}  // namespace verdict
