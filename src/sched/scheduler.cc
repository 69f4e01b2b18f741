#include "sched/scheduler.h"

#include <pthread.h>

#include <algorithm>
#include <cassert>
#include <chrono>

namespace verdict {
namespace {

int64_t NowUs(const Clock& clock) { return clock.MonotonicNanos() / 1000; }

constexpr const char* kClassNames[] = {"realtime", "standard", "bulk"};

uint64_t TransactionsIn(const std::vector<QueuedItem>& items) {
  uint64_t cost = 0;
  for (const QueuedItem& item : items) cost += item.cost;
  return cost;
}

}  // namespace

Scheduler::Scheduler(const SchedulerOptions& options, const Clock& clock, MetricsRegistry& metrics)
    : options_(options),
      clock_(clock),
      metrics_(metrics),
      estimator_(options.ewma_alpha, 50, 20),
      tenants_(options.tenants),
      queue_(options_) {
  batch_sizes_ = metrics.GetHistogram("verdict_sched_batch_size",
                                      "Requests per batch run (1 for each run on an I/O thread)",
                                      {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024});
  late_ = metrics.GetCounter("verdict_sched_late_total",
                             "Requests taken from the queue after their deadline had passed");
  drain_per_transaction_ = metrics.GetGauge(
      "verdict_sched_drain_per_transaction_us",
      "Time per transaction taken while the queue is backlogged (its estimated drain rate)");
  for (int i = 0; i < 3; ++i) {
    queue_depth_[i] = metrics.GetGauge("verdict_sched_queue_depth", "Requests waiting",
                                       {{"class", kClassNames[i]}});
    refused_[i] = metrics.GetCounter("verdict_sched_refused_total",
                                     "Requests refused at admission (429 or 503)",
                                     {{"class", kClassNames[i]}});
  }
  size_t workers = options.workers;
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  for (size_t i = 0; i < workers; ++i) {
    threads_.emplace_back([this] { RunWorker(); });
    // Named for profiles (perf --sort comm, top -H).
    pthread_setname_np(threads_.back().native_handle(), "verdict-worker");
  }
}

Scheduler::~Scheduler() { Stop(); }

int64_t Scheduler::DeadlineFor(Priority priority, std::optional<int32_t> deadline_ms,
                               int64_t received_us) const {
  int64_t budget = options_.classes[static_cast<int>(priority)].deadline_us;
  if (deadline_ms) budget = std::min<int64_t>(budget, int64_t{*deadline_ms} * 1000);
  return received_us + budget;
}

int64_t Scheduler::RetryAfterUs(TenantId tenant) const {
  return tenants_.Get(tenant).bucket.WaitUs(NowUs(clock_));
}

int64_t Scheduler::BulkRetryAfterUs() const {
  MutexLock lock(mu_);
  if (!drain_.usable()) return 0;
  const double over = drain_.WaitUs(queue_.cost()) -
                      static_cast<double>(DeadlineFor(Priority::kBulk, std::nullopt, 0));
  return static_cast<int64_t>(std::clamp(over, 0.0, double{kMaxBulkRetryAfterUs}));
}

Scheduler::Admission Scheduler::Submit(Priority priority, std::optional<int32_t> deadline_ms,
                                       int64_t received_us, Work work, Submission submission) {
  const int64_t now = NowUs(clock_);
  TenantTable::Tenant& tenant = tenants_.Get(submission.tenant);
  const uint32_t cost = std::max<uint32_t>(1, submission.cost);
  // Before the lock: the bucket is one atomic. Tokens taken by a request that the queue then
  // refuses are not returned (the refusal is rare and the caller is over its share anyway).
  if (!tenant.bucket.unlimited() && tenant.bucket.TryTake(now, cost) != 0) {
    metrics_
        .GetCounter("verdict_sched_rate_limited_total",
                    "Requests refused by their tenant's rate limit (429)",
                    {{"tenant", tenant.name}})
        ->Increment();
    return Admission::kRateLimited;
  }
  QueuedItem item;
  item.priority = priority;
  item.enqueued_us = now;
  item.tenant = submission.tenant;
  item.cost = cost;
  item.service = cost / tenant.weight;
  item.capacity_share = tenants_.CapacityShare(submission.tenant);
  item.deadline_us = DeadlineFor(priority, deadline_ms, received_us);
  const int64_t deadline = item.deadline_us;
  item.run = [work = std::move(work), deadline](bool fallback) { work(fallback, deadline); };
  RequestQueue::PushResult result;
  // On an event loop, a request that may run inline waits in the queue until the loop has
  // handed over everything else it has read; DrainOnLoop then takes them by priority. Run at
  // once instead, a realtime request read just after a bulk one would wait for it. The FIFO
  // baseline has nothing to reorder.
  EventLoop* loop =
      options_.inline_when_idle && !options_.fifo && cost == 1 ? EventLoop::Current() : nullptr;
  bool start_drain = false;
  bool wake_worker = false;
  {
    MutexLock lock(mu_);
    if (stopping_) return Admission::kStopping;
    const LoopDrain* drain = loop != nullptr ? DrainOf(loop->id()) : nullptr;
    // Joins the drain waiting in the loop; while that drain runs a request on another of the
    // loop's threads, this thread is free to run one itself, as off a loop.
    const bool joins_drain = drain != nullptr && !drain->running;
    if (drain != nullptr && drain->running) loop = nullptr;
    const bool may_run_inline = !joins_drain && cost == 1 && MayRunInline();
    if (may_run_inline && loop == nullptr) {
      ++inline_running_;
      lock.Unlock();
      RunInline(item);
      return Admission::kQueued;
    }
    if (priority == Priority::kBulk && BulkWouldBeLate(now, deadline, cost)) {
      refused_[static_cast<int>(priority)]->Increment();
      return Admission::kBulkWouldBeLate;
    }
    result = queue_.Push(std::move(item));
    queue_depth_[static_cast<int>(priority)]->Add(result == RequestQueue::PushResult::kQueued);
    start_drain = may_run_inline && result == RequestQueue::PushResult::kQueued;
    if (start_drain) drains_.push_back({loop->id(), false});
    // A request joining a drain leaves the workers asleep unless some idle beyond its share.
    wake_worker = !start_drain && (!joins_drain || SpareIdleWorker());
  }
  if (start_drain) {
    loop->Post([this, loop] { DrainOnLoop(loop); });
    return Admission::kQueued;
  }
  switch (result) {
    case RequestQueue::PushResult::kQueued:
      if (wake_worker) ready_.Signal();
      return Admission::kQueued;
    case RequestQueue::PushResult::kBulkFull:
      refused_[static_cast<int>(priority)]->Increment();
      return Admission::kBulkFull;
    case RequestQueue::PushResult::kFull:
      refused_[static_cast<int>(priority)]->Increment();
      return Admission::kFull;
    case RequestQueue::PushResult::kTenantFull:
      refused_[static_cast<int>(priority)]->Increment();
      return Admission::kTenantFull;
  }
  return Admission::kFull;
}

void Scheduler::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
    // What runs inline on a caller's thread uses this scheduler until it returns.
    while (inline_running_ != 0) inline_done_.Wait(mu_);
  }
  ready_.SignalAll();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

size_t Scheduler::queued() const {
  MutexLock lock(mu_);
  return queue_.size();
}

size_t Scheduler::idle_workers() const {
  MutexLock lock(mu_);
  return idle_workers_;
}

void Scheduler::RunItem(QueuedItem& item) {
  const int64_t now = NowUs(clock_);
  if (now > item.deadline_us) late_->Increment();
  // Decided where it is taken, with the newest service-time estimate: the full path runs
  // only if it can still finish by the deadline. FIFO mode never degrades (it is the baseline).
  const bool fallback = !options_.fifo && !estimator_.FullPathFits(now, item.deadline_us);
  item.run(fallback);
}

void Scheduler::RunInline(QueuedItem& item) {
  // Given back however RunItem ends (a throw included), and Stop waits for it.
  struct InlineSlot {
    Scheduler& scheduler;
    ~InlineSlot() {
      MutexLock lock(scheduler.mu_);
      scheduler.ReleaseInlineSlot();
    }
  } slot{*this};
  batch_sizes_->Observe(1);
  RunItem(item);
}

void Scheduler::DrainOnLoop(EventLoop* loop) {
  const uint64_t id = loop->id();
  std::vector<QueuedItem> taken;
  MutexLock lock(mu_);
  LoopDrain* drain = DrainOf(id);
  if (drain == nullptr) return;
  // Stopping: the workers run what is queued. A batch queued meanwhile (it would hold the
  // loop for its whole length), or no idle worker or journal room left: they take it all on.
  if (stopping_ || queue_.size() == 0) return EndDrain(id, /*hand_over=*/false);
  if (queue_.cost() > queue_.size() || !InlineAllowed()) return EndDrain(id, /*hand_over=*/true);
  drain->running = true;
  taken = queue_.PopBatch(NowUs(clock_), 1);
  NoteTake(taken);
  queue_depth_[static_cast<int>(taken.front().priority)]->Add(-1);
  ++inline_running_;
  lock.Unlock();
  batch_sizes_->Observe(1);
  try {
    RunItem(taken.front());
  } catch (...) {
    FinishDrainRun(id, /*threw=*/true);
    throw;
  }
  // Back to the loop between requests: what it has read meanwhile joins the queue first.
  if (FinishDrainRun(id, /*threw=*/false)) loop->Post([this, loop] { DrainOnLoop(loop); });
}

bool Scheduler::FinishDrainRun(uint64_t loop_id, bool threw) {
  MutexLock lock(mu_);
  const bool go_on = !threw && !stopping_ && queue_.size() > 0;
  if (go_on) {
    DrainOf(loop_id)->running = false;
  } else {
    EndDrain(loop_id, /*hand_over=*/threw);  // after a throw the workers take the rest
  }
  ReleaseInlineSlot();
  return go_on;
}

void Scheduler::ReleaseInlineSlot() {
  assert(inline_running_ > 0);
  if (--inline_running_ == 0) inline_done_.SignalAll();
}

Scheduler::LoopDrain* Scheduler::DrainOf(uint64_t loop_id) {
  for (LoopDrain& drain : drains_) {
    if (drain.loop_id == loop_id) return &drain;
  }
  return nullptr;
}

void Scheduler::EndDrain(uint64_t loop_id, bool hand_over) {
  std::erase_if(drains_, [loop_id](const LoopDrain& d) { return d.loop_id == loop_id; });
  if (hand_over) ready_.Signal();
}

bool Scheduler::SpareIdleWorker() const {
  size_t waiting_drains = 0;
  for (const LoopDrain& drain : drains_) waiting_drains += drain.running ? 0 : 1;
  return idle_workers_ > inline_running_ + waiting_drains;
}

bool Scheduler::BulkWouldBeLate(int64_t now_us, int64_t deadline_us, uint32_t cost) const {
  // The FIFO baseline keeps only the fixed capacity. A request already past its deadline is
  // left to the fallback path, as before. Counting everything queued as ahead overstates the
  // wait of a bulk request whose own deadline_ms puts it ahead of other bulk requests; such a
  // request may be refused where it would just have fit.
  if (options_.fifo || deadline_us <= now_us || !drain_.usable()) return false;
  const double finish =
      static_cast<double>(now_us) + drain_.WaitUs(queue_.cost()) + estimator_.fallback_us() * cost;
  return finish > static_cast<double>(deadline_us);
}

void Scheduler::NoteTake(const std::vector<QueuedItem>& taken) {
  drain_.OnTake(NowUs(clock_), TransactionsIn(taken), queue_.cost());
  drain_per_transaction_->Set(drain_.per_unit_us());
}

bool Scheduler::MayRunInline() const {
  return options_.inline_when_idle && queue_.size() == 0 && InlineAllowed();
}

bool Scheduler::InlineAllowed() const {
  // An idle worker per inline run: a worker that is woken meanwhile (another I/O thread's
  // submission) still finds a core's worth of work waiting for it, as it would have. Only with
  // a journal backlog limit, in FIFO mode too: without one the caller could block in the
  // journal's own queue.
  if (idle_workers_ <= inline_running_) return false;
  return options_.downstream_backlog && options_.downstream_limit > 0 &&
         options_.downstream_backlog() <= options_.downstream_limit;
}

bool Scheduler::DownstreamOverLimit() const {
  if (options_.fifo || !options_.downstream_backlog || options_.downstream_limit == 0) {
    return false;
  }
  return options_.downstream_backlog() > options_.downstream_limit;
}

void Scheduler::RunWorker() {
  while (true) {
    std::vector<QueuedItem> batch;
    bool more = false;
    {
      MutexLock lock(mu_);
      ++idle_workers_;
      while (!stopping_ && queue_.size() == 0) ready_.Wait(mu_);
      assert(idle_workers_ > 0);
      --idle_workers_;
      if (queue_.size() == 0) return;  // stopping and drained
      const bool held_back = !stopping_ && DownstreamOverLimit();
      if (held_back && !queue_.HasPreemptor()) {
        ready_.WaitFor(mu_, std::chrono::microseconds(options_.downstream_poll_us));
        continue;
      }
      if (held_back) {  // only the preempting classes' requests (realtime) go on
        while (queue_.HasPreemptor() && batch.size() < options_.max_batch) {
          batch.push_back(queue_.PopPreemptor(Priority::kBulk));
        }
      } else {
        // Take what is there: an idle engine never waits to fill a batch, a busy one gets
        // larger batches because more has queued up while it worked.
        batch = queue_.PopBatch(NowUs(clock_), options_.max_batch);
      }
      NoteTake(batch);
      for (const QueuedItem& item : batch) queue_depth_[static_cast<int>(item.priority)]->Add(-1);
      more = queue_.size() > 0;
    }
    if (more) ready_.Signal();  // more waiting: wake a sibling
    batch_sizes_->Observe(static_cast<double>(batch.size()));
    for (QueuedItem& item : batch) {
      // Preemption at item granularity: requests of a preempting class (realtime) that arrived
      // while this batch was being worked go first.
      RunArrivedPreemptors(item.priority);
      RunItem(item);
    }
  }
}

void Scheduler::RunArrivedPreemptors(Priority running) {
  // At most a batch at a time, like any worker's take: with standard_may_preempt the
  // preemptors can be many, and the other workers must still find them in the queue.
  while (true) {
    std::vector<QueuedItem> urgent;
    {
      MutexLock lock(mu_);
      while (queue_.HasPreemptorOver(running) && urgent.size() < options_.max_batch) {
        urgent.push_back(queue_.PopPreemptor(running));
        queue_depth_[static_cast<int>(urgent.back().priority)]->Add(-1);
      }
      if (urgent.empty()) return;
      drain_.OnPreemptingTake(TransactionsIn(urgent), queue_.cost());
    }
    for (QueuedItem& u : urgent) RunItem(u);
  }
}

}  // namespace verdict
