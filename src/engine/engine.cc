#include "engine/engine.h"

#include <spdlog/spdlog.h>

#include <future>

#include "engine/admin_ledger.h"
#include "engine/completion.h"
#include "engine/drift_journal_recorder.h"
#include "engine/drift_watch_setup.h"
#include "engine/stored_state.h"
#include "features/account_state_codec.h"
#include "features/feature_vector.h"
#include "monitor/drift_watch.h"
#include "monitor/reference_distribution.h"
#include "policy/policy_bundle.h"
#include "sched/circuit_breaker.h"
#include "sched/scheduler.h"

namespace verdict {
namespace {

// The lifecycle's registry and active set live in the journal's registry column family.
class JournalRegistryStore final : public lifecycle::RegistryStore {
 public:
  explicit JournalRegistryStore(journal::Journal& journal) : journal_(journal) {}
  Status Put(std::string_view key, std::string_view value) override {
    return journal_.PutRegistry(key, value);
  }
  Result<std::optional<std::string>> Get(std::string_view key) const override {
    return journal_.GetRegistry(key);
  }
  Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const override {
    return journal_.ListRegistry(prefix);
  }

 private:
  journal::Journal& journal_;
};

// A batch's answer: one result slot per item, each written only by that item's answer; the
// last item to be answered (Completion) hands them all to `done`.
struct BatchAnswer {
  BatchAnswer(size_t items, Engine::BatchCallback done_with)
      : results(items, Result<Decision>(Status(StatusCode::kInternal, "not decided"))),
        done(std::move(done_with)),
        completion(items) {}
  std::vector<Result<Decision>> results;
  Engine::BatchCallback done;
  Completion completion;
};

// The answer to a request the scheduler did not queue.
Status AdmissionStatus(Scheduler::Admission admission) {
  switch (admission) {
    case Scheduler::Admission::kQueued:
      return Status::Ok();
    case Scheduler::Admission::kBulkFull:
      return Status(StatusCode::kResourceExhausted,
                    "bulk capacity is exhausted; retry after the indicated delay");
    case Scheduler::Admission::kBulkWouldBeLate:
      return Status(StatusCode::kResourceExhausted,
                    "the bulk requests queued ahead would keep this one past its deadline; retry "
                    "after the indicated delay");
    case Scheduler::Admission::kFull:
      return Unavailable("the engine's queue is full; retry shortly");
    case Scheduler::Admission::kStopping:
      return Unavailable("the engine is stopping");
    case Scheduler::Admission::kRateLimited:
      return Status(StatusCode::kResourceExhausted,
                    "the tenant is over its rate limit; retry after the indicated delay", "tenant");
    case Scheduler::Admission::kTenantFull:
      return Status(StatusCode::kResourceExhausted,
                    "the tenant's share of the queue is full; retry after the indicated delay",
                    "tenant");
  }
  return Unavailable("not admitted");
}

}  // namespace

Engine::Engine(const EngineOptions& options, MetricsRegistry& metrics, const Clock& clock)
    : options_(options), clock_(clock), ids_(clock), accounts_(options.account_stripes) {
  auto stage = [&metrics](const char* name) {
    return metrics.GetHistogram("verdict_engine_stage_seconds",
                                "Time spent in each pipeline stage per decision",
                                LatencyBucketsSeconds(), {{"stage", name}});
  };
  metrics_.queue = stage("queue");
  metrics_.features = stage("features");
  metrics_.model = stage("model");
  metrics_.policy = stage("policy");
  metrics_.journal = stage("journal");
  metrics_.total = stage("total");
  tenant_metrics_ = std::make_unique<TenantMetrics>(metrics);
  metrics_.model_overruns = metrics.GetCounter("verdict_engine_model_overruns_total",
                                               "Model stages slower than engine.model_budget_us");
  metrics_.breaker_open = metrics.GetGauge("verdict_engine_model_breaker_open",
                                           "1 while the model's circuit breaker is open");
  for (auto state : {CircuitBreaker::State::kClosed, CircuitBreaker::State::kOpen,
                     CircuitBreaker::State::kHalfOpen}) {
    metrics_.breaker_state[static_cast<int>(state)] = metrics.GetGauge(
        "verdict_engine_model_breaker_state", "1 for the model circuit breaker's current state",
        {{"state", std::string(CircuitBreaker::StateName(state))}});
  }
}

void Engine::RefreshBreakerGauges() const {
  MutexLock lock(breaker_gauges_mu_);  // two scrapes at once must not mix their states
  const CircuitBreaker::State now = breaker_->state(clock_.MonotonicNanos() / 1000);
  metrics_.breaker_open->Set(now == CircuitBreaker::State::kOpen ? 1 : 0);
  for (int i = 0; i < 3; ++i) metrics_.breaker_state[i]->Set(i == static_cast<int>(now) ? 1 : 0);
}

Engine::~Engine() {
  if (scheduler_) scheduler_->Stop();
}

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options,
                                               MetricsRegistry& metrics, const Clock& clock,
                                               journal::BackendOpener open_journal_backend) {
  std::unique_ptr<Engine> engine(new Engine(options, metrics, clock));
  VERDICT_ASSIGN_OR_RETURN(engine->tracer_,
                           tracing::Tracer::Create(options.tracing, metrics, clock));
  if (options.policy_path.empty()) {
    VERDICT_ASSIGN_OR_RETURN(auto rules, FixedRules::Create(options.rules, kFeatureNames));
    engine->policies_.SetDeployment(std::make_shared<const ActivePolicy>(std::move(rules)));
  } else {
    auto compiled = LoadBundle(options.policy_path, kFeatureNames);
    if (!compiled.ok()) {
      return InvalidArgument("policy " + options.policy_path + ": " + compiled.status().message(),
                             "policy.path");
    }
    engine->policies_.SetDeployment(
        std::make_shared<const ActivePolicy>(std::move(compiled).value()));
  }
  journal::JournalOptions journal_options;
  journal_options.data_dir = options.data_dir + "/journal";
  journal_options.durability =
      options.journal.sync ? journal::Durability::kSync : journal::Durability::kAsync;
  journal_options.checkpoint_every_records = options.journal.checkpoint_every_records;
  journal_options.checkpoint_interval_us = options.journal.checkpoint_interval_ms * 1000;
  journal_options.kek_file = options.journal.kek_file;
  journal_options.cipher = options.journal.cipher;
  journal_options.min_free_bytes = options.journal.min_free_mb << 20;
  journal_options.group_delay_us = options.journal.group_delay_us;
  journal_options.group_delay_above_per_s =
      static_cast<double>(options.journal.group_delay_above_per_s);
  journal_options.commit_on_event_loop = options.journal.commit_on_io_thread;
  journal_options.commit_log_bytes = options.journal.commit_log_mb << 20;
  journal_options.background_idle_us = options.journal.background_idle_ms * 1000;
  journal_options.open_damaged = options.journal.open_damaged;
  journal_options.clock = &clock;
  journal_options.metrics = &metrics;
  journal_options.open_backend = std::move(open_journal_backend);
  Engine* raw = engine.get();
  journal_options.on_recovered_state = [raw](std::string_view key, std::string_view value,
                                             const journal::StateTag* tag) {
    Result<AccountState> state = DecodeAccountState(value);
    if (!state.ok()) {
      return Internal("stored state of account '" + std::string(key) +
                      "' is unreadable: " + state.status().message());
    }
    raw->accounts_.WithAccounts(key, key, [&state, tag](AccountState& s, AccountState&) {
      s = std::move(state).value();
      RecordLoadedSeal(tag, s);
    });
    return Status::Ok();
  };
  VERDICT_ASSIGN_OR_RETURN(engine->journal_, journal::Journal::Open(journal_options));
  spdlog::info("journal: {} records recovered in {:.3f} s ({} durability)",
               engine->journal_->durable_sequence(), engine->journal_->recovery_seconds(),
               options.journal.sync ? "sync" : "ASYNC: acknowledged decisions can be lost");
  VERDICT_ASSIGN_OR_RETURN(engine->cases_,
                           cases::CaseStore::Open(*engine->journal_, engine->case_feed_, clock));
  VERDICT_RETURN_IF_ERROR(engine->StartModels(metrics));
  // Tenants' own policies and models, as their admins last activated them.
  VERDICT_RETURN_IF_ERROR(engine->RestoreTenantPolicies());
  VERDICT_RETURN_IF_ERROR(engine->RestoreTenantModels());
  // Drift watch for whichever model version decides (docs/drift.md).
  engine->drift_recorder_ = std::make_unique<DriftJournalRecorder>(*engine->journal_);
  VERDICT_ASSIGN_OR_RETURN(engine->drift_, MakeDriftWatch(options, *engine->tenant_models_, metrics,
                                                          clock, engine->drift_recorder_.get()));
  engine->breaker_ = std::make_unique<CircuitBreaker>(options.sched.breaker);
  SchedulerOptions sched = options.sched;
  sched.downstream_backlog = [journal = engine->journal_.get()] { return journal->backlog(); };
  engine->scheduler_ = std::make_unique<Scheduler>(sched, clock, metrics);
  spdlog::info("engine: {} workers, {} account stripes, rules {} ({}){}",
               engine->scheduler_->worker_count(), options.account_stripes,
               engine->policy()->ref().version, engine->policy()->ref().sha256.substr(0, 12),
               options.sched.fifo ? ", FIFO scheduling (baseline mode)" : "");
  return engine;
}

Status Engine::StartModels(MetricsRegistry& metrics) {
  std::optional<lifecycle::ModelUpload> configured;
  if (!options_.model.path.empty()) {
    auto read = lifecycle::ModelRegistry::ReadFromPath(options_.model.path, options_.model.name,
                                                       options_.model.version, size_t{256} << 20);
    if (!read.ok()) {
      return InvalidArgument("model " + options_.model.path + ": " + read.status().message(),
                             "model.path");
    }
    configured = std::move(read).value();
  }
  lifecycle::LifecycleOptions lo;
  lo.registry.models_dir = options_.data_dir + "/models";
  lo.registry.schema = kFeatureNames;
  lo.registry.schema_version = kFeatureSchemaVersion;
  // An upload's reference, read now as the drift watch will read it (docs/drift.md).
  lo.registry.check_reference = [](std::string_view json) -> Status {
    VERDICT_ASSIGN_OR_RETURN(monitor::ReferenceDistribution reference,
                             monitor::ParseReferenceJson(json));
    return monitor::ResolveReferenceFeatures(reference, kFeatureNames).status();
  };
  lo.rollout = options_.lifecycle.rollout;
  if (lo.rollout.candidate_p99_budget_us == 0) {
    lo.rollout.candidate_p99_budget_us = options_.model_budget_us;
  }
  lo.tick_interval_ms = options_.lifecycle.tick_ms;
  lo.history_limit = options_.lifecycle.history_limit;
  registry_store_ = std::make_unique<JournalRegistryStore>(*journal_);
  // The configured model is registered as the "default" tenant's admin event.
  lo.registry.journaled_sha256s = JournaledModelRegistrations(*journal_, "default");
  journal::Journal* journal = journal_.get();
  auto admin_log = [journal](const lifecycle::AdminChange& change) {
    return journal->RecordAdminEvent(journal::AdminEvent{change.actor.tenant,
                                                         change.actor.principal, change.action,
                                                         change.object, change.details_json});
  };
  VERDICT_ASSIGN_OR_RETURN(models_, lifecycle::ModelLifecycle::Create(lo, *registry_store_,
                                                                      admin_log, clock_, &metrics));
  Status started = models_->Start(configured);
  if (!started.ok()) {
    if (configured) {
      return Status(started.code(), "model " + options_.model.path + ": " + started.message(),
                    started.field());
    }
    return started;
  }
  lifecycle_options_ = lo;
  tenant_models_ = std::make_unique<lifecycle::TenantModels>(
      *models_, [this](const std::string& tenant) { return MakeTenantModels(tenant); });
  const auto set = models_->current();
  if (set->primary) {
    const ModelRef& ref = set->primary->ref();
    spdlog::info("model {} v{} ({} trees, sha256 {})", ref.name, ref.version,
                 set->primary->forest().num_trees(), ref.sha256.substr(0, 12));
  } else {
    spdlog::warn("no model configured (model.path): every decision takes the fallback path");
  }
  return Status::Ok();
}

Status Engine::Submit(Transaction txn, Caller caller, int64_t received_ns, DecisionCallback done) {
  const Priority priority = txn.priority;
  const auto deadline_ms = txn.deadline_ms;
  const Scheduler::Submission submission{scheduler_->TenantFor(caller.tenant), 1};
  return AdmissionStatus(scheduler_->Submit(
      priority, deadline_ms, received_ns / 1000,
      [this, txn = std::move(txn), caller = std::move(caller), received_ns, done = std::move(done)](
          bool fallback, int64_t) mutable {
        Decide(txn, caller, received_ns, fallback, std::move(done));
      },
      submission));
}

int64_t Engine::RetryAfterSeconds(std::string_view tenant) {
  return Scheduler::RetryAfterSeconds(scheduler_->RetryAfterUs(scheduler_->TenantFor(tenant)));
}

int64_t Engine::BulkRetryAfterSeconds() const {
  return Scheduler::RetryAfterSeconds(scheduler_->BulkRetryAfterUs());
}

Status Engine::SubmitBatch(std::vector<Result<Transaction>> items, Caller caller,
                           int64_t received_ns, BatchCallback done) {
  Priority priority = Priority::kBulk;
  std::optional<int32_t> deadline_ms;
  uint32_t decodable = 0;
  for (const auto& item : items) {
    if (!item.ok()) continue;
    ++decodable;
    priority = std::min(priority, item->priority);  // enum order: realtime is most urgent
    if (item->deadline_ms && (!deadline_ms || *item->deadline_ms < *deadline_ms)) {
      deadline_ms = item->deadline_ms;
    }
  }
  // Each item to decide counts towards the tenant's rate limit and fair share, and the queue's
  // work; one that failed decoding is answered with its error at no cost, and a batch of only
  // such items is answered at once.
  if (decodable == 0) {
    std::vector<Result<Decision>> errors;
    errors.reserve(items.size());
    for (const auto& item : items) errors.push_back(item.status());
    done(std::move(errors));
    return Status::Ok();
  }
  const Scheduler::Submission submission{scheduler_->TenantFor(caller.tenant), decodable};
  return AdmissionStatus(scheduler_->Submit(
      priority, deadline_ms, received_ns / 1000,
      [this, items = std::move(items), caller = std::move(caller), received_ns, priority,
       done = std::move(done)](bool fallback, int64_t deadline_us) mutable {
        // Items are decided in order on this worker; their durability completes on the
        // journal's writer, and the last one to become durable answers the batch.
        auto batch = std::make_shared<BatchAnswer>(items.size(), std::move(done));
        auto complete = [batch](size_t index, Result<Decision> result) {
          batch->results[index] = std::move(result);
          if (batch->completion.Arrive()) batch->done(std::move(batch->results));
        };
        for (size_t i = 0; i < items.size(); ++i) {
          if (!items[i].ok()) {
            complete(i, items[i].status());
            continue;
          }
          // A preempting (realtime) request that arrived meanwhile does not wait for the rest of
          // the batch (no account lock is held between two items).
          if (i > 0) scheduler_->RunArrivedPreemptors(priority);
          // Later items re-check the deadline: a long batch degrades its tail, not its head.
          const bool late =
              !scheduler_->estimator().FullPathFits(clock_.MonotonicNanos() / 1000, deadline_us);
          Decide(*items[i], caller, received_ns, fallback || late,
                 [complete, i](Result<Decision> d) { complete(i, std::move(d)); });
        }
      },
      submission));
}

Result<Decision> Engine::DecideAndWait(const Transaction& txn, int64_t received_ns, bool fallback,
                                       const Caller& caller) {
  std::promise<Result<Decision>> promise;
  auto future = promise.get_future();
  Decide(txn, caller, received_ns, fallback,
         [&promise](Result<Decision> d) { promise.set_value(std::move(d)); });
  journal_->HandLoopCommitToWriter();
  return future.get();
}

Result<std::optional<Decision>> Engine::FindDecision(std::string_view tenant,
                                                     const Uuid& decision_id) const {
  VERDICT_ASSIGN_OR_RETURN(auto record, journal_->FindByDecisionId(decision_id));
  // A history record's id is indexed like a decision's, but it decided nothing.
  if (!record || record->tenant != tenant || record->kind != journal::RecordKind::kDecision) {
    return std::optional<Decision>();
  }
  return std::optional<Decision>(std::move(record->decision));
}

Result<std::optional<Decision>> Engine::FindDecisionForTransaction(
    std::string_view tenant, std::string_view transaction_id) const {
  VERDICT_ASSIGN_OR_RETURN(auto stored, journal_->FindByTransaction(tenant, transaction_id));
  // A decision still waiting for its group commit has not been acknowledged: not found yet.
  if (!stored || !stored->durable || stored->record.kind != journal::RecordKind::kDecision) {
    return std::optional<Decision>();
  }
  return std::optional<Decision>(std::move(stored->record.decision));
}

Result<std::vector<Decision>> Engine::RecentDecisionsForAccount(std::string_view tenant,
                                                                std::string_view account,
                                                                size_t limit) const {
  VERDICT_ASSIGN_OR_RETURN(auto records, journal_->ListByAccount(tenant, account, limit));
  std::vector<Decision> out;
  out.reserve(records.size());
  for (auto& record : records) {
    // Imported history is listed by account too, but holds no decision.
    if (record.kind == journal::RecordKind::kDecision) out.push_back(std::move(record.decision));
  }
  return out;
}

bool Engine::Ready(std::string* detail) const {
  const journal::Integrity integrity = journal_->integrity();
  if (integrity.state == journal::IntegrityState::kDamaged) {
    *detail = "journal damaged: " + integrity.detail;
    return false;
  }
  if (!journal_->healthy()) {
    *detail = journal_->health().message();
    return false;
  }
  if (integrity.state == journal::IntegrityState::kVerifying) {
    *detail = "journal: the store's files and chain are being verified in the background";
  }
  const auto state = breaker_->state(clock_.MonotonicNanos() / 1000);
  if (state != CircuitBreaker::State::kClosed) {
    // Still ready (the fallback path answers), but say so.
    *detail = "model circuit breaker " + std::string(CircuitBreaker::StateName(state)) +
              ": deciding by rules alone";
  }
  return true;
}

}  // namespace verdict
