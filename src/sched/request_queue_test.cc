#include "sched/request_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

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

TEST(RequestQueueTest, OnlyClassesThatMayPreemptGoAheadOfALowerClassBatch) {
  SchedulerOptions options;  // realtime alone may preempt
  RequestQueue queue(options);
  queue.Push(Item(Priority::kStandard, 0, 200));
  EXPECT_FALSE(queue.HasPreemptorOver(Priority::kBulk));
  queue.Push(Item(Priority::kRealtime, 0, 50));
  EXPECT_TRUE(queue.HasPreemptorOver(Priority::kBulk));
  EXPECT_TRUE(queue.HasPreemptorOver(Priority::kStandard));
  EXPECT_FALSE(queue.HasPreemptorOver(Priority::kRealtime));  // nothing above realtime

  SchedulerOptions none_preempt;
  none_preempt.classes[0].may_preempt = false;
  RequestQueue none(none_preempt);
  none.Push(Item(Priority::kRealtime, 0, 50));
  EXPECT_FALSE(none.HasPreemptor());

  SchedulerOptions standard_too;
  standard_too.classes[1].may_preempt = true;
  RequestQueue both(standard_too);
  both.Push(Item(Priority::kBulk, 0, 10));
  both.Push(Item(Priority::kStandard, 0, 200));
  both.Push(Item(Priority::kStandard, 0, 100));
  EXPECT_TRUE(both.HasPreemptorOver(Priority::kBulk));
  EXPECT_FALSE(both.HasPreemptorOver(Priority::kStandard));
  EXPECT_EQ(both.PopPreemptor(Priority::kBulk).deadline_us, 100);  // EDF within the class
  EXPECT_EQ(both.PopPreemptor(Priority::kBulk).deadline_us, 200);
  EXPECT_FALSE(both.HasPreemptor());
  EXPECT_EQ(both.size(), 1u);  // the bulk item waits for its turn
}

TEST(RequestQueueTest, BothPreemptingClassesGoHighestFirst) {
  SchedulerOptions options;
  options.classes[1].may_preempt = true;
  RequestQueue queue(options);
  queue.Push(Item(Priority::kStandard, 0, 10));
  queue.Push(Item(Priority::kRealtime, 0, 50));
  EXPECT_EQ(queue.PopPreemptor(Priority::kBulk).priority, Priority::kRealtime);
  EXPECT_EQ(queue.PopPreemptor(Priority::kBulk).priority, Priority::kStandard);
}

TEST(RequestQueueTest, FifoModeHasNoPreemptors) {
  SchedulerOptions options;
  options.fifo = true;
  options.classes[1].may_preempt = true;  // FIFO keeps every item in the standard lane
  RequestQueue queue(options);
  queue.Push(Item(Priority::kRealtime, 0, 50));
  queue.Push(Item(Priority::kStandard, 0, 50));
  queue.Push(Item(Priority::kBulk, 0, 50));
  EXPECT_FALSE(queue.HasPreemptor());
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

QueuedItem TenantItem(uint32_t tenant, double weight, int64_t now_us) {
  QueuedItem item = Item(Priority::kStandard, now_us, now_us + 200'000);
  item.tenant = tenant;
  item.service = 1 / weight;
  return item;
}

// Two tenants of equal weight; the engine serves 2 items per millisecond. B offers its share
// (1/ms); A floods at 5x its share (5/ms). A must get about its half of the service, and B's
// requests must not wait behind A's flood.
TEST(RequestQueueTest, FloodingTenantGetsItsShareAndTheOtherTenantsWaitStaysBounded) {
  SchedulerOptions options;
  RequestQueue queue(options);
  constexpr uint32_t kA = 1, kB = 2;
  std::map<uint32_t, int> served;
  int64_t max_wait_b = 0;
  for (int64_t ms = 0; ms < 10'000; ++ms) {
    const int64_t now = ms * 1000;
    for (int i = 0; i < 5; ++i)
      ASSERT_EQ(queue.Push(TenantItem(kA, 1, now)), RequestQueue::PushResult::kQueued);
    queue.Push(TenantItem(kB, 1, now));
    for (const QueuedItem& item : queue.PopBatch(now, 2)) {
      ++served[item.tenant];
      if (item.tenant == kB) max_wait_b = std::max(max_wait_b, now - item.enqueued_us);
    }
  }
  EXPECT_EQ(served[kB], 10'000);  // all of B's offered load
  EXPECT_EQ(served[kA], 10'000);  // A: its half of the capacity, not more
  EXPECT_EQ(max_wait_b, 0);       // B never waits a round behind A's backlog
  EXPECT_EQ(queue.waiting(kA, Priority::kStandard), 40'000u);
  EXPECT_EQ(queue.waiting(kB, Priority::kStandard), 0u);
}

TEST(RequestQueueTest, BackloggedTenantsAreServedInProportionToTheirWeights) {
  SchedulerOptions options;
  RequestQueue queue(options);
  for (int i = 0; i < 4000; ++i) {
    queue.Push(TenantItem(0, 1, 0));
    queue.Push(TenantItem(1, 3, 0));
    queue.Push(TenantItem(2, 0.5, 0));
  }
  std::map<uint32_t, int> served;
  for (const QueuedItem& item : queue.PopBatch(0, 4500)) ++served[item.tenant];
  // Weights 1 : 3 : 0.5 of 4500 items: 1000, 3000, 500 (to within one item each).
  EXPECT_NEAR(served[0], 1000, 1);
  EXPECT_NEAR(served[1], 3000, 1);
  EXPECT_NEAR(served[2], 500, 1);
}

TEST(RequestQueueTest, IdleTenantEarnsNoCreditAndEdfHoldsWithinATenant) {
  SchedulerOptions options;
  RequestQueue queue(options);
  // Tenant 0 alone for a while: its lane's virtual clock runs ahead.
  for (int i = 0; i < 100; ++i) queue.Push(TenantItem(0, 1, 0));
  ASSERT_EQ(queue.PopBatch(0, 100).size(), 100u);
  // Tenant 1 shows up; both backlogged. Neither is owed the past: they alternate.
  for (int i = 0; i < 10; ++i) {
    queue.Push(TenantItem(0, 1, 0));
    QueuedItem b = TenantItem(1, 1, 0);
    b.deadline_us = 1000 - i;  // reversed deadlines: EDF within the lane
    queue.Push(std::move(b));
  }
  auto batch = queue.PopBatch(0, 20);
  std::map<uint32_t, int> in_first_ten;
  for (int i = 0; i < 10; ++i) ++in_first_ten[batch[i].tenant];
  EXPECT_NEAR(in_first_ten[0], 5, 1);
  EXPECT_NEAR(in_first_ten[1], 5, 1);
  std::vector<int64_t> b_deadlines;
  for (const auto& item : batch) {
    if (item.tenant == 1) b_deadlines.push_back(item.deadline_us);
  }
  EXPECT_TRUE(std::is_sorted(b_deadlines.begin(), b_deadlines.end()));
}

TEST(RequestQueueTest, StrictPriorityStillHoldsAcrossTenants) {
  SchedulerOptions options;
  RequestQueue queue(options);
  for (int i = 0; i < 10; ++i) queue.Push(TenantItem(0, 1, 0));  // standard
  QueuedItem urgent = Item(Priority::kRealtime, 0, 50'000);
  urgent.tenant = 1;
  queue.Push(std::move(urgent));
  EXPECT_TRUE(queue.HasPreemptor());
  EXPECT_EQ(queue.PopBatch(0, 1)[0].tenant, 1u);
}

TEST(RequestQueueTest, TenantHoldsAtMostItsShareOfTheCapacity) {
  SchedulerOptions options;
  options.queue_capacity = 10;
  options.bulk_queue_capacity = 4;
  RequestQueue queue(options);
  auto share = [](uint32_t tenant, Priority p, double s) {
    QueuedItem item = Item(p, 0, 1000);
    item.tenant = tenant;
    item.capacity_share = s;
    return item;
  };
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(queue.Push(share(1, Priority::kStandard, 0.3)), RequestQueue::PushResult::kQueued);
  }
  EXPECT_EQ(queue.Push(share(1, Priority::kRealtime, 0.3)), RequestQueue::PushResult::kTenantFull);
  EXPECT_EQ(queue.Push(share(2, Priority::kStandard, 0.7)), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.Push(share(1, Priority::kBulk, 0.3)), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.Push(share(1, Priority::kBulk, 0.3)), RequestQueue::PushResult::kTenantFull);
  EXPECT_EQ(queue.Push(share(2, Priority::kBulk, 0.7)), RequestQueue::PushResult::kQueued);
}

}  // namespace
}  // namespace verdict
