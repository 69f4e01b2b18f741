// ModelLifecycle: registry, active model set and rollout together. Publishes immutable
// ModelSets (an atomic shared_ptr, read lock-free by every decision), applies activations and
// rollbacks, persists the active set so a restart restores it, journals every change as an
// admin event, and runs the rollout controller on its own background thread (never on the
// request path). Thread-safe; changes are serialized by one mutex.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/json_writer.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "lifecycle/model_registry.h"
#include "lifecycle/model_set.h"
#include "lifecycle/rollout_controller.h"

namespace verdict::lifecycle {

struct LifecycleOptions {
  RegistryOptions registry;
  RolloutOptions rollout;
  // How often the rollout controller looks at the statistics; 0: no background thread (the
  // owner calls Tick, as the tests do).
  int64_t tick_interval_ms = 1000;
  size_t history_limit = 16;  // previous primaries kept for rollback
  // The tenant whose active set this is ("default" for the deployment's): automatic rollout
  // changes are journaled as this tenant's admin events.
  std::string tenant = "default";
  // A tenant's lifecycle: the model its decisions use while it has no primary of its own (the
  // deployment's primary). A shadow or canary activated then compares with it, and a primary
  // activated then keeps it in the history for rollback. Empty for the deployment's lifecycle.
  std::function<std::shared_ptr<const ScoringModel>()> inherited_primary;
};

// Who asked for a change; automatic changes use principal "verdict:rollout".
struct Actor {
  std::string tenant = "default";
  std::string principal;
};

struct AdminChange {
  Actor actor;
  std::string action;        // models.register, models.activate, models.rollback, ...
  std::string object;        // "name/version"
  std::string details_json;  // a JSON object
};
// Journals one change durably; a failure refuses the change (except automatic rollbacks, which
// protect traffic first and are logged).
using AdminLog = std::function<Status(const AdminChange&)>;

enum class ActivateMode { kPrimary, kShadow, kCanary, kStaged };
Result<ActivateMode> ParseActivateMode(std::string_view text);
// A canary needs a traffic weight in [kMinTrafficWeight, 1]; the other modes take none.
Status ValidateActivation(ActivateMode mode, std::optional<double> traffic_weight);

class ModelLifecycle {
 public:
  // `store` and `clock` (and `metrics`, when not null) must outlive the lifecycle.
  static Result<std::unique_ptr<ModelLifecycle>> Create(LifecycleOptions options,
                                                        RegistryStore& store, AdminLog admin_log,
                                                        const Clock& clock,
                                                        MetricsRegistry* metrics);
  ~ModelLifecycle();
  ModelLifecycle(const ModelLifecycle&) = delete;
  ModelLifecycle& operator=(const ModelLifecycle&) = delete;

  // Once, at start: registers the configured model (if any), restores the persisted active set,
  // and activates the configured model as primary when nothing was persisted or the
  // configuration names another model than at the last start. Then starts the rollout thread.
  Status Start(const std::optional<ModelUpload>& configured) EXCLUDES(mu_);

  // The set a decision uses; take it once per decision (I4).
  std::shared_ptr<const ModelSet> current() const { return set_.load(); }

  Result<ModelEntry> Register(const ModelUpload& upload, const Actor& actor,
                              bool* created = nullptr) EXCLUDES(mu_);
  // primary: the model decides everything (a candidate of the same model is promoted);
  // shadow: it scores every transaction beside the primary; canary: it decides for
  // `traffic_weight` of accounts; staged: a canary through the configured stages, then primary.
  Status Activate(std::string_view name, std::string_view version, ActivateMode mode,
                  std::optional<double> traffic_weight, const Actor& actor) EXCLUDES(mu_);
  // Removes the candidate if there is one; otherwise restores the previous primary.
  Status Rollback(const Actor& actor, std::string_view reason) EXCLUDES(mu_);
  // One look by the rollout controller (the background thread calls it every tick).
  void Tick() EXCLUDES(mu_);

  // Registry, active set, divergence, rollout state, history and the last rollback.
  Status WriteStatusJson(JsonWriter& w) const EXCLUDES(mu_);
  const ModelRegistry& registry() const { return registry_; }

 private:
  struct RollbackRecord {
    int64_t at_us = 0;
    ModelRef model;  // the candidate removed, or the primary replaced
    std::string reason;
    std::string principal;
    bool automatic = false;
  };
  struct Metrics {
    Gauge* comparisons = nullptr;
    Gauge* outcome_changes = nullptr;
    Gauge* outcome_change_ratio = nullptr;
    Gauge* delta_mean = nullptr;
    Gauge* delta_p99 = nullptr;
    Gauge* candidate_p99 = nullptr;
    Gauge* weight = nullptr;
    Gauge* stage = nullptr;
    Counter* activations = nullptr;
    Counter* promotions = nullptr;
    Counter* manual_rollbacks = nullptr;
    Counter* automatic_rollbacks = nullptr;
  };

  ModelLifecycle(LifecycleOptions options, RegistryStore& store, AdminLog admin_log,
                 const Clock& clock, MetricsRegistry* metrics);
  // A new set from the parts, with fresh statistics when there is a candidate.
  std::shared_ptr<const ModelSet> MakeSet(std::shared_ptr<const ScoringModel> primary,
                                          std::shared_ptr<const ScoringModel> candidate,
                                          CandidateMode mode, double weight,
                                          bool primary_inherited = false) const;
  // Persists and publishes `next`.
  Status Publish(std::shared_ptr<const ModelSet> next) REQUIRES(mu_);
  Status Persist(const ModelSet& set) const REQUIRES(mu_);
  Status Restore() REQUIRES(mu_);
  // Keeps the primary being replaced for rollback; `inherited` (a tenant replacing the
  // deployment's primary) keeps a null entry instead: rolling back to it follows the
  // deployment's primary again.
  void PushHistory(const std::shared_ptr<const ScoringModel>& old_primary, bool inherited = false)
      REQUIRES(mu_);
  void UpdateGauges(const ModelSet& set, const DivergenceSnapshot& s) const REQUIRES(mu_);
  void RunTicks() EXCLUDES(thread_mu_, mu_);

  const LifecycleOptions options_;
  RegistryStore& store_;
  ModelRegistry registry_;
  AdminLog admin_log_;
  const Clock& clock_;
  Metrics metrics_;
  std::atomic<std::shared_ptr<const ModelSet>> set_;

  // Serializes changes to the set. Held while the store is written (Persist), so it is taken
  // before the store's own lock; never held while taking thread_mu_.
  mutable Mutex mu_;
  RolloutController controller_ GUARDED_BY(mu_);
  // Newest last; null: the deployment's primary (PushHistory).
  std::vector<std::shared_ptr<const ScoringModel>> history_ GUARDED_BY(mu_);
  std::optional<RollbackRecord> last_rollback_ GUARDED_BY(mu_);
  uint64_t generation_ GUARDED_BY(mu_) = 0;
  // An automatic change is in force but its persisting failed; every Tick tries again, or a
  // restart would bring back the set before it.
  bool persist_pending_ GUARDED_BY(mu_) = false;

  Mutex thread_mu_;  // released around each Tick
  CondVar thread_cv_;
  bool stopping_ GUARDED_BY(thread_mu_) = false;
  std::thread thread_;
};

}  // namespace verdict::lifecycle
