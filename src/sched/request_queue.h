// RequestQueue: the waiting requests of the three priority classes. Strict priority across
// classes (realtime, standard, bulk), earliest deadline first within a class, and aging that
// serves the next bulk request (in EDF order) with standard priority once it has waited
// bulk_aging_us. In the FIFO mode everything shares one arrival-ordered queue. Not
// thread-safe: the Scheduler guards it with its mutex.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "core/transaction.h"
#include "sched/scheduler_options.h"

namespace verdict {

struct QueuedItem {
  Priority priority = Priority::kStandard;
  int64_t enqueued_us = 0;
  int64_t deadline_us = 0;                     // absolute, same clock as enqueued_us
  uint64_t order = 0;                          // arrival order: ties and the FIFO mode
  std::function<void(bool /*fallback*/)> run;  // filled by the scheduler's user
};

class RequestQueue {
 public:
  explicit RequestQueue(const SchedulerOptions& options) : options_(options) {}

  enum class PushResult { kQueued, kBulkFull, kFull };
  PushResult Push(QueuedItem item);

  // Takes up to `max` items in service order as of `now_us`.
  std::vector<QueuedItem> PopBatch(int64_t now_us, size_t max);
  // True when a realtime item waits (a worker on a lower-class batch lets it go first).
  bool HasPreemptor() const { return !heaps_[0].empty(); }

  size_t size() const { return heaps_[0].size() + heaps_[1].size() + heaps_[2].size(); }
  size_t bulk_waiting() const { return bulk_waiting_; }

 private:
  struct Later {
    bool fifo;
    bool operator()(const QueuedItem& a, const QueuedItem& b) const {
      if (!fifo && a.deadline_us != b.deadline_us) return a.deadline_us > b.deadline_us;
      return a.order > b.order;
    }
  };
  using Heap = std::priority_queue<QueuedItem, std::vector<QueuedItem>, Later>;
  // Which heap to serve next as of now_us, or -1 when empty.
  int NextHeap(int64_t now_us) const;

  const SchedulerOptions& options_;
  std::array<Heap, 3> heaps_{Heap(Later{options_.fifo}), Heap(Later{options_.fifo}),
                             Heap(Later{options_.fifo})};
  size_t bulk_waiting_ = 0;  // bulk items in any heap (the FIFO mode keeps them in one heap)
  uint64_t next_order_ = 0;
};

}  // namespace verdict
