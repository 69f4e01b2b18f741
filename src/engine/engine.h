// Engine: owns one of each pipeline component (account store, model stage, rules, journal,
// scheduler) and runs features -> model -> policy -> journal for each transaction.
// Thread-safe: Submit and Decide may be called from any thread; per-account consistency and
// journal order come from the store's stripe locks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cases/case_store.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "common/uuid.h"
#include "core/decision.h"
#include "core/transaction.h"
#include "engine/active_policy.h"
#include "engine/caller.h"
#include "engine/engine_options.h"
#include "engine/tenant_metrics.h"
#include "engine/tenant_policies.h"
#include "features/account_store.h"
#include "journal/journal.h"
#include "lifecycle/model_lifecycle.h"
#include "lifecycle/tenant_models.h"
#include "monitor/drift_monitor.h"
#include "tracing/tracer.h"

namespace verdict {

// Only engine.cc and decide.cc need these whole.
class CircuitBreaker;
class Scheduler;
struct DecisionRun;
namespace monitor {
class DriftWatch;
}  // namespace monitor

class Engine {
 public:
  using DecisionCallback = std::function<void(Result<Decision>)>;
  using BatchCallback = std::function<void(std::vector<Result<Decision>>)>;

  // `open_journal_backend`: where the journal stores (JournalOptions::open_backend); null: the
  // embedded RocksDB store in the data directory.
  static Result<std::unique_ptr<Engine>> Create(
      const EngineOptions& options, MetricsRegistry& metrics, const Clock& clock,
      journal::BackendOpener open_journal_backend = nullptr);
  ~Engine();

  // Queues one transaction in its priority class, for `caller`'s tenant (its rate limit, fair
  // share, account state and journal records); `done` runs on a worker thread.
  // `received_ns` is the monotonic time the request arrived (deadline and queue timing).
  // On refusal (kResourceExhausted: bulk over capacity or that would wait past its deadline,
  // or the tenant over its rate or share; kUnavailable: full or stopping) `done` is never
  // called.
  Status Submit(Transaction txn, Caller caller, int64_t received_ns, DecisionCallback done);
  // Queues a batch as one task in its most urgent item's class, decided in order (so two items
  // on one account see each other, as separate requests would). Items that failed decoding
  // pass through unchanged.
  Status SubmitBatch(std::vector<Result<Transaction>> items, Caller caller, int64_t received_ns,
                     BatchCallback done);
  // Whole seconds until `tenant` may submit again after a rate-limit refusal (Retry-After).
  int64_t RetryAfterSeconds(std::string_view tenant);
  // The Retry-After of a bulk refusal in whole seconds, at least 1 (Scheduler::BulkRetryAfterUs).
  int64_t BulkRetryAfterSeconds() const;
  // Decides on the calling thread; `done` runs once the decision is durable (on one of the
  // journal's threads), or at once for an error or a replayed transaction. `fallback` skips the
  // model (the deadline's degraded path).
  void Decide(const Transaction& txn, const Caller& caller, int64_t received_ns, bool fallback,
              DecisionCallback done);
  // Decide and wait for durability (replay, benchmarks, tests).
  Result<Decision> DecideAndWait(const Transaction& txn, int64_t received_ns, bool fallback = false,
                                 const Caller& caller = {});

  // Applies one transaction of imported history (`verdict import`, history_import.h) to both
  // accounts' state and journals it as a history record (state only, no decision), with the
  // update code and under the stripe locks a decision uses (I2, I3). `input_position` is its
  // place in the import's input. `done` runs once the record is durable. On an error return
  // (the journal refused it: a transaction id already journaled, a failed journal) nothing
  // changed and `done` is never called.
  Status ApplyHistory(const Transaction& txn, uint64_t input_position, const Caller& caller,
                      journal::CommitCallback done);

  // The deployment's policy (from the configuration): the one in force for every tenant
  // without a policy of its own.
  std::shared_ptr<const ActivePolicy> policy() const { return policies_.deployment(); }
  // The policy in force for `tenant` (its own, else the deployment's).
  std::shared_ptr<const ActivePolicy> PolicyFor(std::string_view tenant) const {
    return policies_.For(tenant);
  }
  // Activates a compiled bundle for the caller's tenant only (hot: decisions already under way
  // finish with the policy they started with). Journaled as an admin event and stored with its
  // source (`bundle_json`) in the registry under "tenant-policy/<tenant>" first, so a restart
  // restores it; a change that cannot be recorded is not made.
  Status ActivatePolicy(const Caller& caller, std::string_view bundle_json,
                        std::shared_ptr<const CompiledPolicy> compiled) EXCLUDES(policy_write_mu_);

  // Told of every activation of a tenant's own policy once it is in force: the caller, the
  // policy it replaced (the tenant's former one or the deployment's) and the new one. Runs
  // under the activation lock, so that activations reach it in the order they took effect: it
  // must be quick and must not activate. Set before serving; null: none.
  using PolicyActivatedHook =
      std::function<void(const Caller& caller, std::shared_ptr<const ActivePolicy> previous,
                         std::shared_ptr<const ActivePolicy> next)>;
  void SetPolicyActivatedHook(PolicyActivatedHook hook) EXCLUDES(policy_write_mu_) {
    MutexLock lock(policy_write_mu_);
    on_policy_activated_ = std::move(hook);
  }

  // Models of the deployment (the configured model; what tenants without models of their own
  // use): registry, the active set (primary, shadow or canary) and the rollout.
  lifecycle::ModelLifecycle& models() { return *models_; }
  // Every tenant's models: its own lifecycle once its admin registers or activates one.
  lifecycle::TenantModels& tenant_models() { return *tenant_models_; }
  // The journal (API keys live in its registry; admin events go into its chain).
  journal::Journal& journal() { return *journal_; }
  // Analyst cases: one per durable review or block decision (docs/cases.md).
  cases::CaseStore& cases() { return *cases_; }
  // The drift monitor of the primary model deciding `tenant`'s transactions (docs/drift.md):
  // its own model's, or the deployment's shared one; null when that model has no
  // reference.json, no model decides or [drift] enabled = false.
  monitor::DriftMonitor* drift(std::string_view tenant);

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
  // Sets the model breaker's gauges to its state now. /metrics calls it before rendering, the
  // gauges' only reader: an open breaker turns half-open with time alone, so a value set by the
  // last decision would be stale. Thread-safe.
  void RefreshBreakerGauges() const EXCLUDES(breaker_gauges_mu_);
  const EngineOptions& options() const { return options_; }
  // The engine's clock (UTC): what stamps a message that carries no time of its own.
  const Clock& clock() const { return clock_; }

 private:
  Engine(const EngineOptions& options, MetricsRegistry& metrics, const Clock& clock);

  struct StageMetrics {
    Histogram* queue;
    Histogram* features;
    Histogram* model;
    Histogram* policy;
    Histogram* journal;
    Histogram* total;
    Counter* model_overruns;
    Gauge* breaker_open;
    // verdict_engine_model_breaker_state{state=closed|open|half_open}: 1 for the current one.
    Gauge* breaker_state[3];
  };
  // Opens the model lifecycle on the journal's registry; registers and activates the
  // configured model, or restores the persisted active set.
  Status StartModels(MetricsRegistry& metrics);
  // Makes a tenant's own model lifecycle (namespaced registry and active set).
  Result<lifecycle::TenantModels::Made> MakeTenantModels(const std::string& tenant);
  // Restores the tenants' own policies and model lifecycles persisted in the registry; a stored
  // policy that is not the one the tenant's journaled admin events put in force is kDataLoss.
  Status RestoreTenantPolicies();
  // Journals that the caller's tenant's activation, journaled, was not made (its bundle could
  // not be stored), naming the policy still in force.
  void RecordActivationUndone(const Caller& caller) REQUIRES(policy_write_mu_);
  Status RestoreTenantModels();
  // Decide's steps (decide.cc), in the order they run; `run` is the decision's working state.
  // The versions it decides with (I4): policy, model set, drift monitor, and why the model
  // will not decide, if it will not.
  void TraceDecision(DecisionRun& run);
  void ChooseVersions(DecisionRun& run, bool fallback);
  // Runs with both accounts' stripe locks held (DESIGN §3): the steps from the idempotency
  // check to the journal's sequence number. Leaves run.refused or run.replay set if it did not
  // enqueue a decision.
  void DecideUnderLocks(DecisionRun& run, AccountState& sender, AccountState& receiver);
  // A transaction id already journaled: a replay (same input) or a conflict (kAlreadyExists).
  Status CheckIdempotency(DecisionRun& run);
  // Model or fallback path: the breaker is asked only here, by a decision that will report.
  void ChoosePath(DecisionRun& run);
  void ReadFeatures(DecisionRun& run, const AccountState& sender, const AccountState& receiver);
  void Score(DecisionRun& run);
  // Outcome and reasons; a fallback decision says why (FALLBACK or DRIFT_FREEZE).
  void ApplyPolicy(DecisionRun& run);
  // TreeSHAP contributions of a review or block decided by the model.
  void Explain(DecisionRun& run);
  // The stage timings known before the commit, into the decision (and so the record).
  void StampTimings(DecisionRun& run);
  // Applies the transaction to both accounts and enqueues the record; on a refusal both
  // accounts are as they were and the refusal is returned.
  Status JournalDecision(DecisionRun& run, AccountState& sender, AccountState& receiver);
  // After the locks: the stored decision of a replay, once durable.
  void AnswerReplay(DecisionRun& run);
  // After the locks: stage metrics, then the hand-off of the answer to the journal's commit.
  void Answer(DecisionRun& run);
  // After the hand-off: drift counts and the shadow or canary comparison.
  void ObserveAfterAnswer(const DecisionRun& run);
  // Tells the model's circuit breaker how a scoring that Allow let through went (an overrun of
  // model_budget_us is a failure), and counts overruns.
  void RecordModelOutcome(int64_t score_us, int64_t done_ns);
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
  TenantPolicies policies_;
  // Serializes policy activations: the admin event, the stored bundle and the published
  // policy of a tenant then always agree (never on the decision path). Guards no member of its
  // own: policies_ is published atomically for readers.
  Mutex policy_write_mu_;
  PolicyActivatedHook on_policy_activated_ GUARDED_BY(policy_write_mu_);
  lifecycle::LifecycleOptions lifecycle_options_;  // the deployment's; tenants' are derived
  std::unique_ptr<CircuitBreaker> breaker_;
  // Held while the breaker's gauges are set, so that two scrapes at once do not mix their
  // states (the gauges themselves are atomic).
  mutable Mutex breaker_gauges_mu_;
  std::unique_ptr<journal::Journal> journal_;
  // Durable review/block decisions go from the commit callbacks to the case store; shared, so
  // a callback after the store has stopped (the journal's final flush) is harmless.
  std::shared_ptr<cases::CaseFeed> case_feed_ = std::make_shared<cases::CaseFeed>();
  // After the journal, so it stops (and closes the feed) before the journal closes.
  std::unique_ptr<cases::CaseStore> cases_;
  // After the journal (its registry and admin events), so it stops before the journal closes.
  std::unique_ptr<lifecycle::RegistryStore> registry_store_;
  std::unique_ptr<lifecycle::ModelLifecycle> models_;
  // After models_: tenants' lifecycles inherit its primary and read through its registry.
  std::unique_ptr<lifecycle::TenantModels> tenant_models_;
  // Journals the drift monitors' alerts and keeps their freezes; before drift_, which uses it.
  std::unique_ptr<monitor::DriftRecorder> drift_recorder_;
  // Before the scheduler, so that workers (which call Observe) stop before it goes.
  std::unique_ptr<monitor::DriftWatch> drift_;
  StageMetrics metrics_{};
  std::unique_ptr<TenantMetrics> tenant_metrics_;
  // Last, so that it stops (and drains) before the members its tasks use are destroyed.
  std::unique_ptr<Scheduler> scheduler_;
  // Shared with the answers in flight (PendingDecision), which may finish after the engine.
  std::shared_ptr<tracing::Tracer> tracer_;
};

}  // namespace verdict
