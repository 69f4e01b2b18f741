#include "sched/request_queue.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

QueuedItem Item(Priority p, int64_t enqueued_us, int64_t deadline_us) {
  QueuedItem item;
  item.priority = p;
  item.enqueued_us = enqueued_us;
  item.deadline_us = deadline_us;
  return item;
}

std::vector<int64_t> Deadlines(const std::vector<QueuedItem>& batch) {
  std::vector<int64_t> out;
  for (const auto& item : batch) out.push_back(item.deadline_us);
  return out;
}

TEST(RequestQueueTest, StrictPriorityAcrossClassesAndEdfWithin) {
  SchedulerOptions options;
  RequestQueue queue(options);
  ASSERT_EQ(queue.Push(Item(Priority::kBulk, 0, 1000)), RequestQueue::PushResult::kQueued);
  queue.Push(Item(Priority::kStandard, 0, 300));
  queue.Push(Item(Priority::kStandard, 0, 200));
  queue.Push(Item(Priority::kRealtime, 0, 500));
  queue.Push(Item(Priority::kRealtime, 0, 50));
  EXPECT_TRUE(queue.HasPreemptor());
  auto batch = queue.PopBatch(0, 10);
  EXPECT_EQ(Deadlines(batch), (std::vector<int64_t>{50, 500, 200, 300, 1000}));
  EXPECT_EQ(queue.size(), 0u);
}

TEST(RequestQueueTest, AgedBulkGoesAheadOfStandard) {
  SchedulerOptions options;
  options.bulk_aging_us = 1000;
  RequestQueue queue(options);
  queue.Push(Item(Priority::kBulk, 0, 2'000'000));
  queue.Push(Item(Priority::kStandard, 0, 200'000));
  EXPECT_EQ(queue.PopBatch(999, 1)[0].priority, Priority::kStandard);  // not yet aged
  queue.Push(Item(Priority::kStandard, 0, 200'000));
  EXPECT_EQ(queue.PopBatch(1000, 1)[0].priority, Priority::kBulk);  // aged: served first
  EXPECT_EQ(queue.PopBatch(1000, 1)[0].priority, Priority::kStandard);
}

TEST(RequestQueueTest, BulkBeyondCapacityIsRefusedOthersStillQueue) {
  SchedulerOptions options;
  options.bulk_queue_capacity = 2;
  options.queue_capacity = 1;
  RequestQueue queue(options);
  EXPECT_EQ(queue.Push(Item(Priority::kBulk, 0, 1)), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.Push(Item(Priority::kBulk, 0, 1)), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.Push(Item(Priority::kBulk, 0, 1)), RequestQueue::PushResult::kBulkFull);
  EXPECT_EQ(queue.Push(Item(Priority::kRealtime, 0, 1)), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.Push(Item(Priority::kStandard, 0, 1)), RequestQueue::PushResult::kFull);
  EXPECT_EQ(queue.bulk_waiting(), 2u);
  queue.PopBatch(0, 10);
  EXPECT_EQ(queue.bulk_waiting(), 0u);
  EXPECT_EQ(queue.Push(Item(Priority::kBulk, 0, 1)), RequestQueue::PushResult::kQueued);
}

TEST(RequestQueueTest, FifoModeIgnoresPriorityAndDeadlines) {
  SchedulerOptions options;
  options.fifo = true;
  RequestQueue queue(options);
  queue.Push(Item(Priority::kBulk, 0, 3));
  queue.Push(Item(Priority::kStandard, 0, 2));
  queue.Push(Item(Priority::kRealtime, 0, 1));
  EXPECT_EQ(Deadlines(queue.PopBatch(0, 10)), (std::vector<int64_t>{3, 2, 1}));
}

}  // namespace
}  // namespace verdict
