// RolloutController: the state machine of one candidate's canary: a manual canary at a fixed
// traffic weight, or a staged rollout (by default 5% -> 50% -> 100%, then promotion) with a
// dwell time per stage, and the guards that roll the candidate back by themselves. Pure logic
// on injected times and statistics, so every transition is testable with a manual clock.
// Not thread-safe: the lifecycle calls it under its own mutex.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "lifecycle/divergence_stats.h"

namespace verdict::lifecycle {

struct RolloutOptions {
  // Traffic weights of the staged rollout, increasing, each in [0.0001, 1]; after the last stage's
  // dwell the candidate becomes the primary.
  std::vector<double> stages = {0.05, 0.5, 1.0};
  int64_t stage_dwell_us = 300 * 1'000'000LL;
  // Roll back when the candidate's outcome differs from the primary's on more than this share
  // of the transactions both scored (0.001 = 0.1%).
  double max_outcome_divergence = 0.001;
  // Roll back when the candidate's model-stage p99 exceeds this many microseconds.
  int64_t candidate_p99_budget_us = 5'000;
  // Evidence needed before a guard judges a stage and before a stage may advance: comparisons
  // for divergence (and promotion), candidate timings for the p99.
  uint64_t min_comparisons = 200;
  uint64_t min_timings = 100;
};

// Checks the stages (increasing, in [0.0001, 1]) and the other bounds; `field_prefix` names them.
Status ValidateRolloutOptions(const RolloutOptions& options, const std::string& field_prefix);

struct RolloutAction {
  enum class Kind { kNone, kAdvance, kPromote, kRollback };
  Kind kind = Kind::kNone;
  double traffic_weight = 0;  // kAdvance: the next stage's weight
  std::string reason;         // kRollback (and, for the record, kAdvance/kPromote)
};

class RolloutController {
 public:
  enum class Mode { kIdle, kCanary, kStaged };

  explicit RolloutController(RolloutOptions options) : options_(std::move(options)) {}

  // A manual canary: the guards apply, the weight never changes by itself.
  void StartCanary(int64_t now_us);
  // A staged rollout from the first stage; returns that stage's weight.
  double StartStaged(int64_t now_us);
  // Resumes a staged rollout at `stage` (after a restart: the dwell starts again).
  void ResumeStaged(size_t stage, int64_t now_us);
  void Stop() { mode_ = Mode::kIdle; }

  // What should happen now, given the statistics of the current stage. Guards come first: a
  // candidate that breaks one is rolled back even if its dwell is over.
  RolloutAction Evaluate(int64_t now_us, const DivergenceSnapshot& stats) const;
  // Records that `action` was carried out (the next stage starts now, or the rollout ends).
  void Applied(const RolloutAction& action, int64_t now_us);

  Mode mode() const { return mode_; }
  size_t stage() const { return stage_; }
  int64_t stage_started_us() const { return stage_started_us_; }
  double stage_weight() const { return options_.stages[stage_]; }
  const RolloutOptions& options() const { return options_; }
  static const char* ModeName(Mode mode);

 private:
  RolloutOptions options_;
  Mode mode_ = Mode::kIdle;
  size_t stage_ = 0;
  int64_t stage_started_us_ = 0;
};

}  // namespace verdict::lifecycle
