// DecisionRun: the working state of one Engine::Decide (decide.cc): the snapshots it decides
// with (I4), the features, score and stage clock readings, and what happened under the stripe
// locks (decided and enqueued, replayed, or refused). Lives on the deciding thread's stack and
// is read and written by that thread only; the answer's share that other threads finish lives
// in `pending`. Not thread-safe; neither copyable nor movable (the feature view points into it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "core/decision.h"
#include "core/feature_view.h"
#include "core/transaction.h"
#include "engine/active_policy.h"
#include "engine/caller.h"
#include "engine/pending_decision.h"
#include "features/feature_vector.h"
#include "journal/journal.h"
#include "lifecycle/model_set.h"
#include "lifecycle/tenant_models.h"

namespace verdict {
namespace monitor {
class DriftMonitor;
}  // namespace monitor

struct DecisionRun {
  DecisionRun(const Transaction& txn, const Caller& caller, int64_t received_ns, int64_t start_ns)
      : txn(txn), caller(caller), received_ns(received_ns), start_ns(start_ns) {}
  DecisionRun(const DecisionRun&) = delete;
  DecisionRun& operator=(const DecisionRun&) = delete;

  const Transaction& txn;
  const Caller& caller;
  const int64_t received_ns;  // arrival (monotonic): queue time
  const int64_t start_ns;     // start of the decision (monotonic)

  // The answer being made, and its callback; shared with the journal's commit callback.
  std::shared_ptr<PendingDecision> pending;

  // One policy and one model set for the whole decision, whatever is activated meanwhile (I4).
  std::shared_ptr<const ActivePolicy> policy;
  lifecycle::TenantModels::Resolved models;
  lifecycle::ModelSet::Assignment assigned;
  const lifecycle::ScoringModel* model = nullptr;  // assigned.decider: null without a model
  monitor::DriftMonitor* drift = nullptr;          // the deciding model's monitor, if watched
  bool drift_frozen = false;
  // Why the model does not decide (empty: it does, unless its breaker is open).
  std::string fallback_why;
  // Settled under the locks, after the idempotency check (ChoosePath).
  bool use_model = false;

  // The tenant's keys of the two accounts (I7) and the request as the journal keeps it.
  std::string sender_key;
  std::string receiver_key;
  std::string canonical;

  FeatureVector features{};
  const FeatureView view{features, kFeatureNames, kFeatureSchemaVersion};
  std::optional<double> score;
  std::optional<double> anomaly;  // with a model that has an anomaly model

  // Monotonic clock readings at the end of each stage; TreeSHAP time counts in the model stage.
  int64_t features_done_ns = 0;
  int64_t model_done_ns = 0;
  int64_t explain_ns = 0;
  int64_t policy_done_ns = 0;

  // What happened under the stripe locks: neither set means decided and enqueued.
  std::optional<journal::StoredRecord> replay;
  Status refused;

  // The outcome as answered, kept for the work after the hand-off (the answer may already be
  // on its way on another thread then).
  double decided_score = 0;
  Outcome decided_outcome = Outcome::kAllow;
};

}  // namespace verdict
