#include "lifecycle/rollout_controller.h"

#include <cstdio>

#include "lifecycle/model_set.h"

namespace verdict::lifecycle {
namespace {

std::string Percent(double share) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g%%", share * 100.0);
  return text;
}

}  // namespace

Status ValidateRolloutOptions(const RolloutOptions& o, const std::string& prefix) {
  if (o.stages.empty()) {
    return InvalidArgument(prefix + "stages must name at least one traffic weight",
                           prefix + "stages");
  }
  double previous = 0;
  for (double w : o.stages) {
    if (!(w > previous && w >= kMinTrafficWeight && w <= 1.0)) {
      return InvalidArgument(prefix + "stages must increase, each in [0.0001, 1]",
                             prefix + "stages");
    }
    previous = w;
  }
  if (o.stage_dwell_us < 0) {
    return InvalidArgument(prefix + "stage_dwell_s must not be negative", prefix + "stage_dwell_s");
  }
  if (!(o.max_outcome_divergence >= 0 && o.max_outcome_divergence <= 1)) {
    return InvalidArgument(prefix + "max_outcome_divergence must be in [0, 1]",
                           prefix + "max_outcome_divergence");
  }
  if (o.candidate_p99_budget_us <= 0) {
    return InvalidArgument(prefix + "candidate_p99_budget_us must be positive",
                           prefix + "candidate_p99_budget_us");
  }
  return Status::Ok();
}

const char* RolloutController::ModeName(Mode mode) {
  switch (mode) {
    case Mode::kIdle:
      return "idle";
    case Mode::kCanary:
      return "canary";
    case Mode::kStaged:
      return "staged";
  }
  return "idle";
}

void RolloutController::StartCanary(int64_t now_us) {
  mode_ = Mode::kCanary;
  stage_ = 0;
  stage_started_us_ = now_us;
}

double RolloutController::StartStaged(int64_t now_us) {
  ResumeStaged(0, now_us);
  return options_.stages[0];
}

void RolloutController::ResumeStaged(size_t stage, int64_t now_us) {
  mode_ = Mode::kStaged;
  stage_ = stage < options_.stages.size() ? stage : options_.stages.size() - 1;
  stage_started_us_ = now_us;
}

RolloutAction RolloutController::Evaluate(int64_t now_us, const DivergenceSnapshot& s) const {
  RolloutAction action;
  if (mode_ == Mode::kIdle) return action;
  if (s.candidate_timings >= options_.min_timings &&
      s.candidate_p99_us > static_cast<double>(options_.candidate_p99_budget_us)) {
    action.kind = RolloutAction::Kind::kRollback;
    action.reason =
        "candidate model-stage p99 " + std::to_string(static_cast<int64_t>(s.candidate_p99_us)) +
        " us exceeds its budget of " + std::to_string(options_.candidate_p99_budget_us) + " us (" +
        std::to_string(s.candidate_timings) + " timings)";
    return action;
  }
  if (s.comparisons >= options_.min_comparisons &&
      s.outcome_change_rate() > options_.max_outcome_divergence) {
    action.kind = RolloutAction::Kind::kRollback;
    action.reason = "outcome divergence " + Percent(s.outcome_change_rate()) + " (" +
                    std::to_string(s.outcome_changes) + " of " + std::to_string(s.comparisons) +
                    " transactions) exceeds " + Percent(options_.max_outcome_divergence);
    return action;
  }
  if (mode_ != Mode::kStaged) return action;
  if (now_us - stage_started_us_ < options_.stage_dwell_us) return action;
  if (s.comparisons < options_.min_comparisons) return action;  // not enough evidence yet
  const std::string passed = "stage " + std::to_string(stage_ + 1) + " (" +
                             Percent(options_.stages[stage_]) + ") passed with divergence " +
                             Percent(s.outcome_change_rate()) + " over " +
                             std::to_string(s.comparisons) + " transactions";
  if (stage_ + 1 < options_.stages.size()) {
    action.kind = RolloutAction::Kind::kAdvance;
    action.traffic_weight = options_.stages[stage_ + 1];
  } else {
    action.kind = RolloutAction::Kind::kPromote;
    action.traffic_weight = 1.0;
  }
  action.reason = passed;
  return action;
}

void RolloutController::Applied(const RolloutAction& action, int64_t now_us) {
  switch (action.kind) {
    case RolloutAction::Kind::kNone:
      return;
    case RolloutAction::Kind::kAdvance:
      ++stage_;
      stage_started_us_ = now_us;
      return;
    case RolloutAction::Kind::kPromote:
    case RolloutAction::Kind::kRollback:
      mode_ = Mode::kIdle;
      stage_ = 0;
      return;
  }
}

}  // namespace verdict::lifecycle
