// Scheduler: admits requests into the priority queues and runs them on its worker threads in
// batches: strict priority across classes with aging, earliest deadline first within a class,
// preempting (realtime) requests taken ahead of the rest of a lower-class batch, a fallback flag
// for any request whose full path no longer fits its deadline; a bulk request that would wait past
// its deadline at the queue's measured drain rate is refused. Within a class, tenants share by
// weight (weighted fair queueing) and each may be rate limited (token bucket) at admission.
// With inline_when_idle, a submission to an idle scheduler runs on the caller's thread; on an
// event-loop thread (common/event_loop.h) it runs from that loop once the loop has handed over
// every request it has read, so that the most urgent of them goes first.
// Owns its threads; thread-safe. A loop that ran Submit must stop before the scheduler is
// destroyed (the drain posted to it refers to the scheduler).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/event_loop.h"
#include "common/metrics.h"
#include "core/transaction.h"
#include "sched/drain_estimator.h"
#include "sched/request_queue.h"
#include "sched/scheduler_options.h"
#include "sched/service_estimator.h"
#include "sched/tenant_table.h"

namespace verdict {

// Who a task is for and what it costs: a batch of n transactions costs n, in the tenant's
// rate limit and in its fair share.
struct SchedulerSubmission {
  TenantId tenant = kDefaultTenantId;
  uint32_t cost = 1;
};

class Scheduler {
 public:
  // `fallback` is true when the request must skip the expensive stages to meet its deadline;
  // `deadline_us` is its absolute deadline on the clock's monotonic scale (µs).
  using Work = std::function<void(bool fallback, int64_t deadline_us)>;
  // kBulkFull: the bulk queue is at its capacity (429).
  // kBulkWouldBeLate: a bulk request would wait past its deadline behind what is queued, at
  // the queue's measured drain rate (429).
  // kRateLimited: the tenant's token bucket is empty (429; RetryAfterUs says for how long).
  // kTenantFull: the tenant already holds its weight's share of the queue (429).
  enum class Admission {
    kQueued,
    kBulkFull,
    kBulkWouldBeLate,
    kFull,
    kStopping,
    kRateLimited,
    kTenantFull
  };

  using Submission = SchedulerSubmission;

  Scheduler(const SchedulerOptions& options, const Clock& clock, MetricsRegistry& metrics);
  ~Scheduler();  // stops: runs what is queued, then joins
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // `deadline_ms` shortens the class deadline (never lengthens it). `received_us` is the
  // monotonic arrival time (µs) from which the deadline counts.
  Admission Submit(Priority priority, std::optional<int32_t> deadline_ms, int64_t received_us,
                   Work work, Submission submission = {});
  void Stop();

  // Preemption: runs on the calling thread the requests queued now of every class above
  // `running` that may preempt (ClassOptions::may_preempt; by default realtime only, and
  // none in FIFO mode), the caller being in the middle of work of class `running`. Workers call it
  // between the items of a batch; a batch request calls it between its transactions, so that a
  // realtime request never waits for all of a batch of up to max_batch_items transactions. The
  // caller must hold no lock that the work it runs takes (an account stripe, the scheduler's own):
  // that work is a whole decision.
  void RunArrivedPreemptors(Priority running);

  // The deadline a request of this class gets (absolute, µs).
  int64_t DeadlineFor(Priority priority, std::optional<int32_t> deadline_ms,
                      int64_t received_us) const;
  // The id for a tenant's name (interned on first sight; configured tenants keep their
  // weight and rate limit, others get weight 1 and no limit). Cheap enough per request, but
  // callers that can should keep the id.
  TenantId TenantFor(std::string_view name) { return tenants_.Intern(name); }
  // How long until `tenant` may submit one more request (0: now): the Retry-After of a
  // kRateLimited refusal, rounded up to whole seconds by RetryAfterSeconds.
  int64_t RetryAfterUs(TenantId tenant) const;
  // The Retry-After of a kBulkFull or kBulkWouldBeLate refusal: how long until what is queued
  // now, drained at the rate measured over this backlog, would leave a bulk request of the
  // class deadline time to finish (0: no backlog measured, or it would now). At most
  // kMaxBulkRetryAfterUs: the rate is measured over milliseconds, so a client should look
  // again within a minute whatever it says.
  int64_t BulkRetryAfterUs() const;
  static constexpr int64_t kMaxBulkRetryAfterUs = 60'000'000;
  static int64_t RetryAfterSeconds(int64_t micros) {
    return std::max<int64_t>(1, (micros + 999'999) / 1'000'000);
  }
  const TenantTable& tenants() const { return tenants_; }
  ServiceTimeEstimator& estimator() { return estimator_; }
  size_t worker_count() const { return threads_.size(); }
  size_t queued() const;
  size_t idle_workers() const;  // workers waiting for work (tests wait for start-up with it)
  const SchedulerOptions& options() const { return options_; }

 private:
  void RunWorker();
  // Whether a single request (cost 1) may run on its caller's thread now, or on a loop thread
  // start a drain (see inline_when_idle): a batch would hold that thread, and every connection
  // it serves, for its whole length. Under mu_.
  bool MayRunInline() const;
  // The part of MayRunInline that still holds for requests already queued: a worker is idle
  // and the downstream backlog is under its limit. Under mu_.
  bool InlineAllowed() const;
  // Whether the downstream stage holds more than its limit (see SchedulerOptions).
  bool DownstreamOverLimit() const;
  void RunItem(QueuedItem& item);
  // Runs `item` on the calling thread as an inline submission, which the caller has counted in
  // inline_running_ under mu_ (Stop waits for it). Not under mu_.
  void RunInline(QueuedItem& item);

  // A loop's drain: posted to the loop and waiting there, or running a request on one of the
  // loop's threads. A loop has at most one.
  struct LoopDrain {
    uint64_t loop_id = 0;
    bool running = false;
  };
  // Runs the most urgent queued request on a thread of `loop`, then posts itself to the loop
  // again while requests wait; hands them to the workers instead when a batch is queued or
  // InlineAllowed no longer holds, and ends when the queue is empty or the scheduler stops.
  void DrainOnLoop(EventLoop* loop);
  // `loop`'s drain, or null. Under mu_.
  LoopDrain* DrainOf(uint64_t loop_id);
  // Ends `loop_id`'s drain; `hand_over` wakes a worker for what remains queued. Under mu_.
  void EndDrain(uint64_t loop_id, bool hand_over);
  // Whether more workers wait than inline runs and posted drains hold (each holds one idle
  // worker's share). Under mu_.
  bool SpareIdleWorker() const;
  // Whether a bulk request of `cost` transactions queued now, behind everything waiting, would
  // be answered only after its deadline even on the fallback path. Under mu_.
  bool BulkWouldBeLate(int64_t now_us, int64_t deadline_us, uint32_t cost) const;
  // Records a worker's take in the drain estimate. Under mu_.
  void NoteTake(const std::vector<QueuedItem>& taken);

  const SchedulerOptions options_;
  const Clock& clock_;
  MetricsRegistry& metrics_;
  ServiceTimeEstimator estimator_;
  TenantTable tenants_;
  Histogram* batch_sizes_;
  Gauge* queue_depth_[3];
  Counter* late_;
  Counter* refused_[3];
  Gauge* drain_per_transaction_;

  mutable std::mutex mu_;
  std::condition_variable ready_;
  RequestQueue queue_;
  QueueDrainEstimator drain_;
  bool stopping_ = false;
  size_t idle_workers_ = 0;              // workers waiting for work
  size_t inline_running_ = 0;            // submissions being run on their caller's thread
  std::vector<LoopDrain> drains_;        // at most one per loop, found by its id
  std::condition_variable inline_done_;  // inline_running_ fell to 0 (Stop waits for it)
  std::vector<std::thread> threads_;
};

}  // namespace verdict
