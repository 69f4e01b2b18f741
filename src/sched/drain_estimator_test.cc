#include "sched/drain_estimator.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(QueueDrainEstimatorTest, MeasuresTimePerItemWhileTheQueueStaysBacklogged) {
  QueueDrainEstimator drain(/*alpha=*/1.0, /*min_window_us=*/10'000);
  EXPECT_FALSE(drain.measured());
  drain.OnTake(0, 4, 100);      // the window opens: 4 items being worked
  drain.OnTake(5'000, 4, 96);   // too short to close: 8 items now
  drain.OnTake(16'000, 4, 92);  // 16 ms for 8 items
  ASSERT_TRUE(drain.measured());
  EXPECT_DOUBLE_EQ(drain.per_item_us(), 2'000);
  EXPECT_DOUBLE_EQ(drain.WaitUs(50), 100'000);
  drain.OnTake(28'000, 2, 90);  // 12 ms for the 4 taken at 16 ms
  EXPECT_DOUBLE_EQ(drain.per_item_us(), 3'000);
}

TEST(QueueDrainEstimatorTest, IdleTimeBetweenBacklogsIsNotCounted) {
  QueueDrainEstimator drain(1.0, 10'000);
  drain.OnTake(0, 1, 0);         // nothing left: no backlog
  drain.OnTake(500'000, 1, 10);  // the next arrivals, half a second later, open a window
  EXPECT_FALSE(drain.measured());
  drain.OnTake(510'000, 1, 9);
  EXPECT_DOUBLE_EQ(drain.per_item_us(), 10'000);
  drain.OnTake(515'000, 1, 0);  // the backlog ends before the window is long enough
  drain.OnTake(900'000, 1, 3);  // a new one: the idle gap is in neither window
  drain.OnTake(920'000, 1, 2);
  EXPECT_DOUBLE_EQ(drain.per_item_us(), 20'000);
}

TEST(QueueDrainEstimatorTest, AveragesSamplesWithItsWeight) {
  QueueDrainEstimator drain(0.5, 10'000);
  drain.OnTake(0, 10, 100);
  drain.OnTake(10'000, 10, 90);  // 1,000 µs per item: the first sample is taken as it is
  drain.OnTake(40'000, 10, 80);  // 3,000: halfway there
  EXPECT_DOUBLE_EQ(drain.per_item_us(), 2'000);
}

TEST(QueueDrainEstimatorTest, PreemptingTakesCountOnlyInAnOpenWindowAndCloseNone) {
  QueueDrainEstimator drain(1.0, 10'000);
  drain.OnPreemptingTake(5);  // no backlog window: nothing to count it in
  drain.OnTake(0, 2, 10);     // opens with 2
  drain.OnPreemptingTake(2);  // 4 in the window, and no sample taken before they are done
  EXPECT_FALSE(drain.measured());
  drain.OnTake(20'000, 1, 9);  // 20 ms for 4
  EXPECT_DOUBLE_EQ(drain.per_item_us(), 5'000);
}

}  // namespace
}  // namespace verdict
