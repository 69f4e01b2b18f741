#include "sched/drain_estimator.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(QueueDrainEstimatorTest, MeasuresTimePerTransactionWhileTheQueueStaysBacklogged) {
  QueueDrainEstimator drain(/*alpha=*/1.0, /*min_window_us=*/10'000);
  EXPECT_FALSE(drain.usable());
  drain.OnTake(0, 4, 100);      // the window opens: 4 transactions being worked
  drain.OnTake(5'000, 4, 96);   // too short to close: 8 now
  drain.OnTake(16'000, 4, 92);  // 16 ms for 8
  ASSERT_TRUE(drain.usable());
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 2'000);
  EXPECT_DOUBLE_EQ(drain.WaitUs(50), 100'000);
  drain.OnTake(28'000, 2, 90);  // 12 ms for the 4 taken at 16 ms
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 3'000);
}

TEST(QueueDrainEstimatorTest, IdleTimeBetweenBacklogsIsNotCounted) {
  QueueDrainEstimator drain(1.0, 10'000);
  drain.OnTake(0, 1, 0);         // nothing left: no backlog
  drain.OnTake(500'000, 1, 10);  // the next arrivals, half a second later, open a window
  EXPECT_FALSE(drain.usable());
  drain.OnTake(510'000, 1, 9);
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 10'000);
  drain.OnTake(515'000, 1, 0);  // the backlog ends before the window is long enough
  drain.OnTake(900'000, 1, 3);  // a new one: the idle gap is in neither window
  drain.OnTake(920'000, 1, 2);
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 20'000);
}

TEST(QueueDrainEstimatorTest, NoEstimateOnOfferOnceTheBacklogHasEnded) {
  QueueDrainEstimator drain(1.0, 10'000);
  drain.OnTake(0, 1, 5);
  drain.OnTake(50'000, 1, 4);  // a slow spell: 50 ms per transaction
  ASSERT_TRUE(drain.usable());
  drain.OnTake(60'000, 4, 0);  // the queue ran empty: that spell says nothing of later ones
  EXPECT_FALSE(drain.usable());
  drain.OnTake(900'000, 1, 2);  // a new backlog, measured afresh before it is used
  EXPECT_FALSE(drain.usable());
  drain.OnTake(910'000, 1, 1);  // its first sample is taken as it is, not blended with 50 ms
  ASSERT_TRUE(drain.usable());
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 10'000);
}

TEST(QueueDrainEstimatorTest, BacklogsTooShortToMeasureOfferNoEstimate) {
  QueueDrainEstimator drain(1.0, 10'000);
  drain.OnTake(0, 1, 5);
  drain.OnTake(50'000, 1, 0);  // one slow spell, then the queue ran empty
  for (int64_t t = 100'000; t < 1'000'000; t += 100'000) {
    drain.OnTake(t, 1, 3);  // backlogs of 5 ms each: no window closes
    EXPECT_FALSE(drain.usable()) << t;
    drain.OnTake(t + 5'000, 3, 0);
  }
}

TEST(QueueDrainEstimatorTest, AveragesSamplesWithItsWeight) {
  QueueDrainEstimator drain(0.5, 10'000);
  drain.OnTake(0, 10, 100);
  drain.OnTake(10'000, 10, 90);  // 1,000 µs each: the first sample is taken as it is
  drain.OnTake(40'000, 10, 80);  // 3,000: halfway there
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 2'000);
}

TEST(QueueDrainEstimatorTest, PreemptingTakesCountInAnOpenWindowAndOpenNone) {
  QueueDrainEstimator drain(1.0, 10'000);
  drain.OnPreemptingTake(5, 3);  // no window open: counted nowhere
  drain.OnTake(0, 2, 10);        // opens with 2
  drain.OnPreemptingTake(2, 8);  // 4 in the window, and no sample before they are done
  EXPECT_FALSE(drain.usable());
  drain.OnTake(20'000, 1, 7);  // 20 ms for 4
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 5'000);
}

TEST(QueueDrainEstimatorTest, PreemptingTakeThatEmptiesTheQueueEndsTheWindow) {
  QueueDrainEstimator drain(1.0, 10'000);
  drain.OnTake(0, 1, 2);
  drain.OnTake(10'000, 1, 1);    // 10 ms each
  drain.OnPreemptingTake(1, 0);  // another worker's preemption took the last one
  EXPECT_FALSE(drain.usable());
  // A minute idle, then a take with work left: the minute is in no sample.
  drain.OnTake(60'010'000, 1, 1);
  drain.OnTake(60'030'000, 1, 1);
  EXPECT_DOUBLE_EQ(drain.per_unit_us(), 20'000);
}

}  // namespace
}  // namespace verdict
