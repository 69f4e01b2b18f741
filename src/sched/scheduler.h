// Scheduler: admits requests into the priority queues and runs them on its worker threads in
// batches: strict priority across classes with aging, earliest deadline first within a class,
// realtime requests taken ahead of the rest of a lower-class batch, and a fallback flag for
// any request whose full path no longer fits its deadline. Owns its threads; thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "core/transaction.h"
#include "sched/request_queue.h"
#include "sched/scheduler_options.h"
#include "sched/service_estimator.h"

namespace verdict {

class Scheduler {
 public:
  // `fallback` is true when the request must skip the expensive stages to meet its deadline;
  // `deadline_us` is its absolute deadline on the clock's monotonic scale (µs).
  using Work = std::function<void(bool fallback, int64_t deadline_us)>;
  enum class Admission { kQueued, kBulkFull, kFull, kStopping };

  Scheduler(const SchedulerOptions& options, const Clock& clock, MetricsRegistry& metrics);
  ~Scheduler();  // stops: runs what is queued, then joins
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // `deadline_ms` shortens the class deadline (never lengthens it). `received_us` is the
  // monotonic arrival time (µs) from which the deadline counts.
  Admission Submit(Priority priority, std::optional<int32_t> deadline_ms, int64_t received_us,
                   Work work);
  void Stop();

  // The deadline a request of this class gets (absolute, µs).
  int64_t DeadlineFor(Priority priority, std::optional<int32_t> deadline_ms,
                      int64_t received_us) const;
  ServiceTimeEstimator& estimator() { return estimator_; }
  size_t worker_count() const { return threads_.size(); }
  size_t queued() const;
  const SchedulerOptions& options() const { return options_; }

 private:
  void RunWorker();
  void RunItem(QueuedItem& item);

  const SchedulerOptions options_;
  const Clock& clock_;
  ServiceTimeEstimator estimator_;
  Histogram* batch_sizes_;
  Gauge* queue_depth_[3];
  Counter* late_;
  Counter* refused_[3];

  mutable std::mutex mu_;
  std::condition_variable ready_;
  RequestQueue queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace verdict
