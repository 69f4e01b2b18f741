// RequestQueue: the waiting requests of the three priority classes. Strict priority across
// classes (realtime, standard, bulk); within a class, weighted fair queueing across tenants
// (start-time fair queueing: each tenant's lane advances a virtual clock by cost / weight per
// item served, and the lane with the smallest virtual finish time goes next) and earliest
// deadline first within a tenant's lane. Aging serves the next bulk request with standard
// priority once it has waited bulk_aging_us. Each tenant may hold at most its weight's share
// of each queue capacity. In the FIFO mode everything shares one arrival-ordered lane.
// Not thread-safe: the Scheduler guards it with its mutex.
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
  uint32_t tenant = 0;                         // TenantId: the lane it waits in
  uint32_t cost = 1;                           // transactions it holds (a batch: n)
  double service = 1;                          // virtual service it costs: cost / weight
  double capacity_share = 1;                   // its tenant's share of the queue capacities
  std::function<void(bool /*fallback*/)> run;  // filled by the scheduler's user
};

class RequestQueue {
 public:
  explicit RequestQueue(const SchedulerOptions& options) : options_(options) {}

  // kTenantFull: the item's tenant already holds its share of the capacity (others may still
  // queue).
  enum class PushResult { kQueued, kBulkFull, kFull, kTenantFull };
  PushResult Push(QueuedItem item);

  // Takes up to `max` items in service order as of `now_us`.
  std::vector<QueuedItem> PopBatch(int64_t now_us, size_t max);
  // Preemption (ClassOptions::may_preempt): an item of a higher class that may preempt goes
  // ahead of the rest of a batch of `running`'s class already being worked. The highest such
  // class with items waiting, or -1 (always -1 in the FIFO mode).
  int PreemptingClassOver(Priority running) const;
  bool HasPreemptorOver(Priority running) const { return PreemptingClassOver(running) >= 0; }
  // An item of any preempting class waits (bulk, the lowest class, never preempts).
  bool HasPreemptor() const { return HasPreemptorOver(Priority::kBulk); }
  // Takes the next item of PreemptingClassOver(running); only when HasPreemptorOver(running).
  QueuedItem PopPreemptor(Priority running);

  size_t size() const { return size_; }
  uint64_t cost() const { return cost_; }  // transactions waiting (a batch counts each)
  size_t bulk_waiting() const { return bulk_waiting_; }
  // Items of `tenant` waiting in `priority`'s class (0 in the FIFO mode's other classes).
  size_t waiting(uint32_t tenant, Priority priority) const;

 private:
  struct Later {
    bool fifo;
    bool operator()(const QueuedItem& a, const QueuedItem& b) const {
      if (!fifo && a.deadline_us != b.deadline_us) return a.deadline_us > b.deadline_us;
      return a.order > b.order;
    }
  };
  using Heap = std::priority_queue<QueuedItem, std::vector<QueuedItem>, Later>;
  struct Lane {
    Heap heap;
    double virtual_start = 0;  // the class's virtual time at which this lane's next item starts
  };
  struct Class {
    std::vector<Lane> lanes;       // indexed by tenant id, grown on demand
    std::vector<uint32_t> active;  // tenants with items waiting, in no particular order
    double virtual_time = 0;       // start time of the item served last
  };

  Lane& LaneFor(int cls, uint32_t tenant);
  // Which class to serve next as of now_us, or -1 when empty.
  int NextClass(int64_t now_us) const;
  // The tenant whose lane goes next in a non-empty class.
  uint32_t NextTenant(const Class& cls) const;
  QueuedItem PopFrom(int cls, uint32_t tenant);

  const SchedulerOptions& options_;
  std::array<Class, 3> classes_;
  size_t size_ = 0;
  uint64_t cost_ = 0;
  size_t bulk_waiting_ = 0;  // bulk items in any class (the FIFO mode keeps them in one lane)
  uint64_t next_order_ = 0;
};

}  // namespace verdict
