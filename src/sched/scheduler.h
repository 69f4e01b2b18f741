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
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/event_loop.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
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
                   Work work, Submission submission = {}) EXCLUDES(mu_);
  void Stop() EXCLUDES(mu_);

  // Preemption: runs on the calling thread the requests queued now of every class above
  // `running` that may preempt (ClassOptions::may_preempt; by default realtime only, and
  // none in FIFO mode), the caller being in the middle of work of class `running`. Workers call it
  // between the items of a batch; a batch request calls it between its transactions, so that a
  // realtime request never waits for all of a batch of up to max_batch_items transactions. The
  // caller must hold no lock that the work it runs takes (an account stripe, the scheduler's own):
  // that work is a whole decision.
  void RunArrivedPreemptors(Priority running) EXCLUDES(mu_);

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
  int64_t BulkRetryAfterUs() const EXCLUDES(mu_);
  static constexpr int64_t kMaxBulkRetryAfterUs = 60'000'000;
  static int64_t RetryAfterSeconds(int64_t micros) {
    return std::max<int64_t>(1, (micros + 999'999) / 1'000'000);
  }
  const TenantTable& tenants() const { return tenants_; }
  ServiceTimeEstimator& estimator() { return estimator_; }
  size_t worker_count() const { return threads_.size(); }
  size_t queued() const EXCLUDES(mu_);
  size_t idle_workers() const
      EXCLUDES(mu_);  // workers waiting for work (tests wait for start-up with it)
  const SchedulerOptions& options() const { return options_; }

 private:
  void RunWorker() EXCLUDES(mu_);
  // Whether a single request (cost 1) may run on its caller's thread now, or on a loop thread
  // start a drain (see inline_when_idle): a batch would hold that thread, and every connection
  // it serves, for its whole length.
  bool MayRunInline() const REQUIRES(mu_);
  // The part of MayRunInline that still holds for requests already queued: a worker is idle
  // and the downstream backlog is under its limit.
  bool InlineAllowed() const REQUIRES(mu_);
  // Whether the downstream stage holds more than its limit (see SchedulerOptions).
  bool DownstreamOverLimit() const;
  // Runs a whole decision, which may preempt (RunArrivedPreemptors takes mu_).
  void RunItem(QueuedItem& item) EXCLUDES(mu_);
  // Runs `item` on the calling thread as an inline submission, which the caller has counted in
  // inline_running_ (Stop waits for it).
  void RunInline(QueuedItem& item) EXCLUDES(mu_);

  // A loop's drain: posted to the loop and waiting there, or running a request on one of the
  // loop's threads. A loop has at most one.
  struct LoopDrain {
    uint64_t loop_id = 0;
    bool running = false;
  };
  // Runs the most urgent queued request on a thread of `loop`, then posts itself to the loop
  // again while requests wait; hands them to the workers instead when a batch is queued or
  // InlineAllowed no longer holds, and ends when the queue is empty or the scheduler stops.
  void DrainOnLoop(EventLoop* loop) EXCLUDES(mu_);
  // After a drain's run: in one critical section, gives the run's inline slot back and decides
  // whether the drain goes on (true) or ends (after a throw, handing the rest to the workers).
  // Once Stop has seen no inline run, the drain no longer touches the scheduler.
  bool FinishDrainRun(uint64_t loop_id, bool threw) EXCLUDES(mu_);
  // `loop`'s drain, or null.
  LoopDrain* DrainOf(uint64_t loop_id) REQUIRES(mu_);
  // Ends `loop_id`'s drain; `hand_over` wakes a worker for what remains queued.
  void EndDrain(uint64_t loop_id, bool hand_over) REQUIRES(mu_);
  // Gives back an inline run's slot, waking Stop when it was the last.
  void ReleaseInlineSlot() REQUIRES(mu_);
  // Whether more workers wait than inline runs and posted drains hold (each holds one idle
  // worker's share).
  bool SpareIdleWorker() const REQUIRES(mu_);
  // Whether a bulk request of `cost` transactions queued now, behind everything waiting, would
  // be answered only after its deadline even on the fallback path.
  bool BulkWouldBeLate(int64_t now_us, int64_t deadline_us, uint32_t cost) const REQUIRES(mu_);
  // Records a worker's take in the drain estimate.
  void NoteTake(const std::vector<QueuedItem>& taken) REQUIRES(mu_);

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

  // Never held while a request runs (RunItem).
  mutable Mutex mu_;
  CondVar ready_;  // work queued, or stopping
  RequestQueue queue_ GUARDED_BY(mu_);
  QueueDrainEstimator drain_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  size_t idle_workers_ GUARDED_BY(mu_) = 0;        // workers waiting for work
  size_t inline_running_ GUARDED_BY(mu_) = 0;      // submissions being run on their caller's thread
  std::vector<LoopDrain> drains_ GUARDED_BY(mu_);  // at most one per loop, found by its id
  CondVar inline_done_;                            // inline_running_ fell to 0 (Stop waits for it)
  // Written only by the constructor, before any other thread can see the scheduler.
  std::vector<std::thread> threads_;
};

}  // namespace verdict
