// Engine: owns one of each pipeline component (account store, model stage, rules, journal,
// scheduler) and runs features -> model -> policy -> journal for each transaction.
// Thread-safe: Submit and Decide may be called from any thread; per-account consistency and
// journal order come from the store's stripe locks.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cases/case_store.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "common/uuid.h"
#include "core/decision.h"
#include "core/transaction.h"
#include "engine/active_policy.h"
#include "engine/caller.h"
#include "engine/engine_options.h"
#include "features/account_store.h"
#include "journal/journal.h"
#include "lifecycle/model_lifecycle.h"
#include "monitor/drift_monitor.h"
#include "monitor/drift_watch.h"
#include "policy/fixed_rules.h"
#include "sched/circuit_breaker.h"
#include "sched/scheduler.h"

namespace verdict {

class Engine {
 public:
  using DecisionCallback = std::function<void(Result<Decision>)>;
  using BatchCallback = std::function<void(std::vector<Result<Decision>>)>;

  static Result<std::unique_ptr<Engine>> Create(const EngineOptions& options,
                                                MetricsRegistry& metrics, const Clock& clock);
  ~Engine();

  // Queues one transaction in its priority class, for `caller`'s tenant (its rate limit, fair
  // share, account state and journal records); `done` runs on a worker thread.
  // `received_ns` is the monotonic time the request arrived (deadline and queue timing).
  // On refusal (kResourceExhausted: bulk over capacity or the tenant over its rate or share;
  // kUnavailable: full or stopping) `done` is never called.
  Status Submit(Transaction txn, Caller caller, int64_t received_ns, DecisionCallback done);
  // Queues a batch as one task in its most urgent item's class, decided in order (so two items
  // on one account see each other, as separate requests would). Items that failed decoding
  // pass through unchanged.
  Status SubmitBatch(std::vector<Result<Transaction>> items, Caller caller, int64_t received_ns,
                     BatchCallback done);
  // Whole seconds until `tenant` may submit again after a rate-limit refusal (Retry-After).
  int64_t RetryAfterSeconds(std::string_view tenant);
  // Decides on the calling thread; `done` runs once the decision is durable (on the journal's
  // writer thread), or at once for an error or a replayed transaction. `fallback` skips the
  // model (the deadline's degraded path).
  void Decide(const Transaction& txn, const Caller& caller, int64_t received_ns, bool fallback,
              DecisionCallback done);
  // Decide and wait for durability (replay, benchmarks, tests).
  Result<Decision> DecideAndWait(const Transaction& txn, int64_t received_ns, bool fallback = false,
                                 const Caller& caller = {});

  // The policy in force, and activation of a compiled bundle (hot: decisions already under
  // way finish with the policy they started with).
  std::shared_ptr<const ActivePolicy> policy() const { return policy_.load(); }
  void ActivatePolicy(std::shared_ptr<const CompiledPolicy> compiled);

  // Models: registry, the active set (primary, shadow or canary) and the rollout.
  lifecycle::ModelLifecycle& models() { return *models_; }
  // The journal (API keys live in its registry; admin events go into its chain).
  journal::Journal& journal() { return *journal_; }
  // Analyst cases: one per durable review or block decision (docs/cases.md).
  cases::CaseStore& cases() { return *cases_; }
  // The primary model's drift monitor (docs/drift.md); null when it has no reference.json, no
  // model decides or [drift] enabled = false.
  monitor::DriftMonitor* drift();

  // Stored decisions (the journal's committed records) of one tenant, for the read routes.
  // Another tenant's decision is not found, exactly like one that does not exist (I7).
  Result<std::optional<Decision>> FindDecision(std::string_view tenant,
                                               const Uuid& decision_id) const;
  Result<std::optional<Decision>> FindDecisionForTransaction(std::string_view tenant,
                                                             std::string_view transaction_id) const;
  Result<std::vector<Decision>> RecentDecisionsForAccount(std::string_view tenant,
                                                          std::string_view account,
                                                          size_t limit) const;

  // Readiness for /readyz; `detail` says what is wrong when false, or what is degraded.
  bool Ready(std::string* detail) const;
  const EngineOptions& options() const { return options_; }

 private:
  Engine(const EngineOptions& options, MetricsRegistry& metrics, const Clock& clock);

  struct StageMetrics {
    Histogram* queue;
    Histogram* features;
    Histogram* model;
    Histogram* policy;
    Histogram* journal;
    Histogram* total;
    Counter* decisions[3][2];  // [outcome][path]
    Counter* model_overruns;
    Gauge* breaker_open;
  };
  Status AdmissionStatus(Scheduler::Admission admission) const;
  // Opens the model lifecycle on the journal's registry; registers and activates the
  // configured model, or restores the persisted active set.
  Status StartModels(MetricsRegistry& metrics);
  // Scores the transaction with the model that did not decide it and records how the two
  // differ (shadow and canary statistics). After the answer is handed off; never acted on.
  void CompareModels(const Transaction& txn, const FeatureView& view, const ActivePolicy& policy,
                     const lifecycle::ModelSet& models,
                     const lifecycle::ModelSet::Assignment& assigned, double decided_score,
                     Outcome decided_outcome, int64_t decided_model_us);

  EngineOptions options_;
  const Clock& clock_;
  UuidV7Generator ids_;
  AccountStore accounts_;
  std::atomic<std::shared_ptr<const ActivePolicy>> policy_;
  std::unique_ptr<CircuitBreaker> breaker_;
  std::unique_ptr<journal::Journal> journal_;
  // Durable review/block decisions go from the commit callbacks to the case store; shared, so
  // a callback after the store has stopped (the journal's final flush) is harmless.
  std::shared_ptr<cases::CaseFeed> case_feed_ = std::make_shared<cases::CaseFeed>();
  // After the journal, so it stops (and closes the feed) before the journal closes.
  std::unique_ptr<cases::CaseStore> cases_;
  // After the journal (its registry and admin events), so it stops before the journal closes.
  std::unique_ptr<lifecycle::RegistryStore> registry_store_;
  std::unique_ptr<lifecycle::ModelLifecycle> models_;
  // Before the scheduler, so that workers (which call Observe) stop before it goes.
  std::unique_ptr<monitor::DriftWatch> drift_;
  StageMetrics metrics_{};
  // Last, so that it stops (and drains) before the members its tasks use are destroyed.
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace verdict
