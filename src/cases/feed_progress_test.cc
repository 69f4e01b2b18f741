#include "cases/feed_progress.h"

#include <gtest/gtest.h>

namespace verdict::cases {
namespace {

TEST(FeedProgressTest, TheMarkFollowsStoredCases) {
  FeedProgress progress;
  EXPECT_EQ(progress.mark(), 0u);
  for (uint64_t seq : {3, 4, 7}) progress.Handled(seq, true);
  EXPECT_EQ(progress.mark(), 7u);
  EXPECT_EQ(progress.last(), 7u);
}

// A batch [10, 11, 12] whose 11 could not be stored, then a batch [15] that was: the mark
// stays at 10, so the next start opens 11 again (the feed used to persist 15, and 11 was
// never opened).
TEST(FeedProgressTest, ACaseNotStoredHoldsTheMarkBelowItForGood) {
  FeedProgress progress;
  progress.Handled(10, true);
  progress.Handled(11, false);
  progress.Handled(12, true);
  EXPECT_EQ(progress.mark(), 10u);
  progress.Handled(15, true);
  EXPECT_EQ(progress.mark(), 10u);
  EXPECT_EQ(progress.last(), 15u);
  progress.Handled(16, false);
  EXPECT_EQ(progress.mark(), 10u);
}

TEST(FeedProgressTest, AFirstCaseNotStoredKeepsTheMarkAtZero) {
  FeedProgress progress;
  progress.Handled(1, false);
  progress.Handled(2, true);
  EXPECT_EQ(progress.mark(), 0u);
}

}  // namespace
}  // namespace verdict::cases
