#include "sched/request_queue.h"

#include <algorithm>
#include <cassert>

namespace verdict {

RequestQueue::Lane& RequestQueue::LaneFor(int cls, uint32_t tenant) {
  std::vector<Lane>& lanes = classes_[cls].lanes;
  if (tenant >= lanes.size()) {
    lanes.reserve(tenant + 1);
    while (lanes.size() <= tenant) lanes.push_back(Lane{Heap(Later{options_.fifo}), 0});
  }
  return lanes[tenant];
}

size_t RequestQueue::waiting(uint32_t tenant, Priority priority) const {
  const std::vector<Lane>& lanes = classes_[static_cast<int>(priority)].lanes;
  return tenant < lanes.size() ? lanes[tenant].heap.size() : 0;
}

RequestQueue::PushResult RequestQueue::Push(QueuedItem item) {
  const bool bulk = item.priority == Priority::kBulk;
  if (bulk && bulk_waiting_ >= options_.bulk_queue_capacity) return PushResult::kBulkFull;
  if (!bulk && size_ - bulk_waiting_ >= options_.queue_capacity) return PushResult::kFull;
  if (options_.fifo) item.tenant = 0;  // one lane, arrival order: the baseline
  int cls = options_.fifo ? 1 : static_cast<int>(item.priority);
  if (!options_.fifo && item.capacity_share < 1) {
    // A tenant's share of the capacity, so that a flood cannot fill the queue for everyone.
    const double capacity =
        static_cast<double>(bulk ? options_.bulk_queue_capacity : options_.queue_capacity);
    const size_t limit = std::max<size_t>(1, static_cast<size_t>(capacity * item.capacity_share));
    const size_t held = bulk ? waiting(item.tenant, Priority::kBulk)
                             : waiting(item.tenant, Priority::kRealtime) +
                                   waiting(item.tenant, Priority::kStandard);
    if (held >= limit) return PushResult::kTenantFull;
  }
  item.order = next_order_++;
  Class& c = classes_[cls];
  Lane& lane = LaneFor(cls, item.tenant);
  if (lane.heap.empty()) {
    // A lane that was idle starts at the class's present, not where it left off: idle time
    // earns no credit, and a returning tenant does not wait behind its own past.
    lane.virtual_start = std::max(lane.virtual_start, c.virtual_time);
    c.active.push_back(item.tenant);
  }
  if (bulk) ++bulk_waiting_;
  ++size_;
  cost_ += item.cost;
  lane.heap.push(std::move(item));
  return PushResult::kQueued;
}

uint32_t RequestQueue::NextTenant(const Class& cls) const {
  if (cls.active.size() == 1) return cls.active[0];  // one tenant: no fairness to compute
  uint32_t best = cls.active[0];
  double best_finish = 0;
  uint64_t best_order = 0;
  for (size_t i = 0; i < cls.active.size(); ++i) {
    const Lane& lane = cls.lanes[cls.active[i]];
    const QueuedItem& head = lane.heap.top();
    const double finish = lane.virtual_start + head.service;
    if (i == 0 || finish < best_finish || (finish == best_finish && head.order < best_order)) {
      best = cls.active[i];
      best_finish = finish;
      best_order = head.order;
    }
  }
  return best;
}

int RequestQueue::NextClass(int64_t now_us) const {
  if (options_.fifo) return classes_[1].active.empty() ? -1 : 1;
  if (!classes_[0].active.empty()) return 0;
  const Class& bulk = classes_[2];
  if (!bulk.active.empty() &&
      bulk.lanes[NextTenant(bulk)].heap.top().enqueued_us + options_.bulk_aging_us <= now_us) {
    return 2;  // aged bulk goes ahead of standard
  }
  if (!classes_[1].active.empty()) return 1;
  if (!bulk.active.empty()) return 2;
  return -1;
}

int RequestQueue::PreemptingClassOver(Priority running) const {
  if (options_.fifo) return -1;
  for (int cls = 0; cls < static_cast<int>(running); ++cls) {
    if (options_.classes[cls].may_preempt && !classes_[cls].active.empty()) return cls;
  }
  return -1;
}

QueuedItem RequestQueue::PopPreemptor(Priority running) {
  const int cls = PreemptingClassOver(running);
  return PopFrom(cls, NextTenant(classes_[cls]));
}

QueuedItem RequestQueue::PopFrom(int cls, uint32_t tenant) {
  Class& c = classes_[cls];
  Lane& lane = c.lanes[tenant];
  // priority_queue::top is const; the item is moved out just before pop discards it.
  QueuedItem item = std::move(const_cast<QueuedItem&>(lane.heap.top()));
  lane.heap.pop();
  // Earliest deadline first within a lane (arrival order in the FIFO mode, and among equals).
  assert(lane.heap.empty() || options_.fifo || lane.heap.top().deadline_us >= item.deadline_us);
  assert(lane.heap.empty() || options_.fifo || lane.heap.top().deadline_us > item.deadline_us ||
         lane.heap.top().order > item.order);
  c.virtual_time = lane.virtual_start;
  lane.virtual_start += item.service;
  if (lane.heap.empty()) {
    auto it = std::find(c.active.begin(), c.active.end(), tenant);
    *it = c.active.back();
    c.active.pop_back();
  }
  // The counts cover exactly what waits: never below what is being taken out.
  assert(size_ > 0 && cost_ >= item.cost);
  assert(item.priority != Priority::kBulk || bulk_waiting_ > 0);
  --size_;
  cost_ -= item.cost;
  if (item.priority == Priority::kBulk) --bulk_waiting_;
  assert(bulk_waiting_ <= size_ && size_ <= cost_);
  return item;
}

std::vector<QueuedItem> RequestQueue::PopBatch(int64_t now_us, size_t max) {
  std::vector<QueuedItem> batch;
  while (batch.size() < max) {
    const int cls = NextClass(now_us);
    if (cls < 0) break;
    batch.push_back(PopFrom(cls, NextTenant(classes_[cls])));
  }
  return batch;
}

}  // namespace verdict
