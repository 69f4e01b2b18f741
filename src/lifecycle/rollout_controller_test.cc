#include "lifecycle/rollout_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/clock.h"

namespace verdict::lifecycle {
namespace {

using ::testing::HasSubstr;
using Kind = RolloutAction::Kind;

RolloutOptions Options() {
  RolloutOptions o;
  o.stages = {0.05, 0.5, 1.0};
  o.stage_dwell_us = 60 * kMicrosPerSecond;
  o.max_outcome_divergence = 0.001;
  o.candidate_p99_budget_us = 500;
  o.min_comparisons = 1000;
  o.min_timings = 100;
  return o;
}

DivergenceSnapshot Stats(uint64_t comparisons, uint64_t changes, double p99_us = 10,
                         uint64_t timings = 1000) {
  DivergenceSnapshot s;
  s.comparisons = comparisons;
  s.outcome_changes = changes;
  s.candidate_p99_us = p99_us;
  s.candidate_timings = timings;
  return s;
}

TEST(RolloutControllerTest, IdleDoesNothing) {
  RolloutController c(Options());
  EXPECT_EQ(c.Evaluate(0, Stats(1'000'000, 1'000'000, 1e9)).kind, Kind::kNone);
}

TEST(RolloutControllerTest, StagesAdvanceAfterTheirDwellAndThenPromote) {
  ManualClock clock(1'000 * kMicrosPerSecond);
  RolloutController c(Options());
  EXPECT_DOUBLE_EQ(c.StartStaged(clock.NowMicros()), 0.05);
  EXPECT_EQ(c.mode(), RolloutController::Mode::kStaged);
  EXPECT_EQ(c.stage(), 0u);

  // Within the dwell: nothing, however good the statistics.
  clock.AdvanceMicros(59 * kMicrosPerSecond);
  EXPECT_EQ(c.Evaluate(clock.NowMicros(), Stats(5000, 0)).kind, Kind::kNone);
  // Dwell over but not enough evidence yet: still nothing.
  clock.AdvanceMicros(1 * kMicrosPerSecond);
  EXPECT_EQ(c.Evaluate(clock.NowMicros(), Stats(999, 0)).kind, Kind::kNone);
  // Dwell over with evidence: 5% -> 50%.
  RolloutAction a = c.Evaluate(clock.NowMicros(), Stats(1000, 1));
  ASSERT_EQ(a.kind, Kind::kAdvance);
  EXPECT_DOUBLE_EQ(a.traffic_weight, 0.5);
  EXPECT_THAT(a.reason, HasSubstr("stage 1 (5%) passed"));
  c.Applied(a, clock.NowMicros());
  EXPECT_EQ(c.stage(), 1u);
  EXPECT_EQ(c.stage_started_us(), clock.NowMicros());

  // The next stage has its own dwell, counted from its start.
  clock.AdvanceMicros(30 * kMicrosPerSecond);
  EXPECT_EQ(c.Evaluate(clock.NowMicros(), Stats(2000, 0)).kind, Kind::kNone);
  clock.AdvanceMicros(30 * kMicrosPerSecond);
  a = c.Evaluate(clock.NowMicros(), Stats(2000, 0));
  ASSERT_EQ(a.kind, Kind::kAdvance);
  EXPECT_DOUBLE_EQ(a.traffic_weight, 1.0);
  c.Applied(a, clock.NowMicros());

  // After the last stage's dwell: promotion, and the controller is idle again.
  clock.AdvanceMicros(60 * kMicrosPerSecond);
  a = c.Evaluate(clock.NowMicros(), Stats(2000, 0));
  ASSERT_EQ(a.kind, Kind::kPromote);
  c.Applied(a, clock.NowMicros());
  EXPECT_EQ(c.mode(), RolloutController::Mode::kIdle);
  EXPECT_EQ(c.Evaluate(clock.NowMicros(), Stats(2000, 0)).kind, Kind::kNone);
}

TEST(RolloutControllerTest, DivergenceAboveTheLimitRollsBackAtAnyStage) {
  for (size_t stage = 0; stage < 3; ++stage) {
    RolloutController c(Options());
    c.ResumeStaged(stage, 0);
    // 0.1% exactly is allowed; above it is not, even before the dwell is over.
    EXPECT_EQ(c.Evaluate(1, Stats(1000, 1)).kind, Kind::kNone);
    RolloutAction a = c.Evaluate(1, Stats(1000, 2));
    ASSERT_EQ(a.kind, Kind::kRollback) << stage;
    EXPECT_THAT(a.reason, HasSubstr("outcome divergence 0.2%"));
    EXPECT_THAT(a.reason, HasSubstr("2 of 1000"));
    c.Applied(a, 1);
    EXPECT_EQ(c.mode(), RolloutController::Mode::kIdle);
  }
}

TEST(RolloutControllerTest, DivergenceNeedsEnoughComparisons) {
  RolloutController c(Options());
  c.StartStaged(0);
  EXPECT_EQ(c.Evaluate(1, Stats(999, 999)).kind, Kind::kNone);
  EXPECT_EQ(c.Evaluate(1, Stats(1000, 999)).kind, Kind::kRollback);
}

TEST(RolloutControllerTest, SlowCandidateRollsBack) {
  RolloutController c(Options());
  c.StartStaged(0);
  EXPECT_EQ(c.Evaluate(1, Stats(0, 0, 500)).kind, Kind::kNone);       // at the budget is fine
  EXPECT_EQ(c.Evaluate(1, Stats(0, 0, 5000, 99)).kind, Kind::kNone);  // too few timings
  RolloutAction a = c.Evaluate(1, Stats(0, 0, 501, 100));
  ASSERT_EQ(a.kind, Kind::kRollback);
  EXPECT_THAT(a.reason, HasSubstr("p99 501 us exceeds its budget of 500 us"));
}

TEST(RolloutControllerTest, ManualCanaryIsGuardedButNeverAdvances) {
  RolloutController c(Options());
  c.StartCanary(0);
  EXPECT_EQ(c.mode(), RolloutController::Mode::kCanary);
  EXPECT_EQ(c.Evaluate(365LL * 86400 * kMicrosPerSecond, Stats(1'000'000, 0)).kind, Kind::kNone);
  EXPECT_EQ(c.Evaluate(1, Stats(1000, 50)).kind, Kind::kRollback);
  c.Stop();
  EXPECT_EQ(c.Evaluate(1, Stats(1000, 50)).kind, Kind::kNone);
}

TEST(RolloutControllerTest, OptionsAreValidated) {
  RolloutOptions o = Options();
  EXPECT_TRUE(ValidateRolloutOptions(o, "lifecycle.").ok());
  o.stages = {0.5, 0.2};
  EXPECT_EQ(ValidateRolloutOptions(o, "lifecycle.").field(), "lifecycle.stages");
  o.stages = {0.5, 1.5};
  EXPECT_EQ(ValidateRolloutOptions(o, "lifecycle.").field(), "lifecycle.stages");
  o.stages = {};
  EXPECT_EQ(ValidateRolloutOptions(o, "lifecycle.").field(), "lifecycle.stages");
  o = Options();
  o.max_outcome_divergence = 2;
  EXPECT_EQ(ValidateRolloutOptions(o, "lifecycle.").field(), "lifecycle.max_outcome_divergence");
  o = Options();
  o.candidate_p99_budget_us = 0;
  EXPECT_EQ(ValidateRolloutOptions(o, "lifecycle.").field(), "lifecycle.candidate_p99_budget_us");
}

}  // namespace
}  // namespace verdict::lifecycle
