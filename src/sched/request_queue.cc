#include "sched/request_queue.h"

namespace verdict {

RequestQueue::PushResult RequestQueue::Push(QueuedItem item) {
  const bool bulk = item.priority == Priority::kBulk;
  if (bulk && bulk_waiting_ >= options_.bulk_queue_capacity) return PushResult::kBulkFull;
  if (!bulk && size() - bulk_waiting_ >= options_.queue_capacity) return PushResult::kFull;
  item.order = next_order_++;
  const int heap = options_.fifo ? 1 : static_cast<int>(item.priority);
  if (bulk) ++bulk_waiting_;
  heaps_[heap].push(std::move(item));
  return PushResult::kQueued;
}

int RequestQueue::NextHeap(int64_t now_us) const {
  if (options_.fifo) return heaps_[1].empty() ? -1 : 1;
  if (!heaps_[0].empty()) return 0;
  if (!heaps_[2].empty() && heaps_[2].top().enqueued_us + options_.bulk_aging_us <= now_us) {
    return 2;  // aged bulk goes ahead of standard
  }
  if (!heaps_[1].empty()) return 1;
  if (!heaps_[2].empty()) return 2;
  return -1;
}

std::vector<QueuedItem> RequestQueue::PopBatch(int64_t now_us, size_t max) {
  std::vector<QueuedItem> batch;
  while (batch.size() < max) {
    int heap = NextHeap(now_us);
    if (heap < 0) break;
    // priority_queue::top is const; the item is moved out just before pop discards it.
    batch.push_back(std::move(const_cast<QueuedItem&>(heaps_[heap].top())));
    heaps_[heap].pop();
    if (batch.back().priority == Priority::kBulk) --bulk_waiting_;
  }
  return batch;
}

}  // namespace verdict
