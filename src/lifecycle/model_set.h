// ModelSet: the models decisions are made with: the primary, at most one candidate (a shadow
// that only scores, or a canary that decides for a share of accounts) and the candidate's
// divergence statistics. Immutable once published (the statistics are a thread-safe sink);
// the lifecycle swaps whole sets atomically and a decision takes one set once (I4).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "lifecycle/divergence_stats.h"
#include "lifecycle/scoring_model.h"

namespace verdict::lifecycle {

enum class CandidateMode { kNone, kShadow, kCanary };
std::string_view CandidateModeName(CandidateMode mode);

// The canary bucket of an account, 0..9999: a stable hash, so an account keeps its bucket
// across stages and restarts, and a larger traffic weight only adds accounts.
uint32_t CanaryBucket(std::string_view account);
// The least canary share: one bucket in 10,000. A smaller weight would decide for no account.
inline constexpr double kMinTrafficWeight = 0.0001;

struct ModelSet {
  std::shared_ptr<const ScoringModel> primary;  // null: no model (every decision fallback)
  // A tenant's set only: the primary is the deployment's, taken when the tenant started a
  // candidate while it had no primary of its own. Removing the candidate returns the tenant to
  // the deployment's primary, whatever that is by then.
  bool primary_inherited = false;
  std::shared_ptr<const ScoringModel> candidate;  // null when mode is kNone
  CandidateMode mode = CandidateMode::kNone;
  double traffic_weight = 0;  // canary: share of accounts decided by the candidate, [0.0001, 1]
  uint64_t generation = 0;    // bumped by every published change
  int64_t since_us = 0;       // when this set was published (wall clock)
  // Non-null whenever there is a candidate; fresh for every published set, so statistics never
  // mix two stages.
  std::shared_ptr<DivergenceStats> stats;

  // Who decides a transaction of this sender, and who only scores it for comparison.
  struct Assignment {
    const ScoringModel* decider = nullptr;   // null: no model at all
    const ScoringModel* observer = nullptr;  // null: nothing to compare with
    bool candidate_decides = false;
  };
  Assignment Assign(std::string_view sender_account) const;
};

}  // namespace verdict::lifecycle
