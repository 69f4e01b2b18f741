#include "engine/engine.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <future>
#include <limits>
#include <mutex>

#include "api/transaction_json.h"
#include "engine/drift_watch_setup.h"
#include "features/account_state_codec.h"
#include "features/feature_extractor.h"
#include "features/feature_vector.h"
#include "monitor/reference_distribution.h"
#include "policy/policy_bundle.h"

namespace verdict {
namespace {

int64_t MicrosBetween(int64_t from_ns, int64_t to_ns) { return (to_ns - from_ns) / 1000; }

// Decisions other than allow carry this many model explanations.
constexpr size_t kTopContributions = 4;

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
  std::lock_guard lock(breaker_gauges_mu_);  // two scrapes at once must not mix their states
  const CircuitBreaker::State now = breaker_->state(clock_.MonotonicNanos() / 1000);
  metrics_.breaker_open->Set(now == CircuitBreaker::State::kOpen ? 1 : 0);
  for (int i = 0; i < 3; ++i) metrics_.breaker_state[i]->Set(i == static_cast<int>(now) ? 1 : 0);
}

Engine::~Engine() {
  if (scheduler_) scheduler_->Stop();
}

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options,
                                               MetricsRegistry& metrics, const Clock& clock) {
  std::unique_ptr<Engine> engine(new Engine(options, metrics, clock));
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
  journal_options.min_free_bytes = options.journal.min_free_mb << 20;
  journal_options.group_delay_us = options.journal.group_delay_us;
  journal_options.group_delay_above_per_s =
      static_cast<double>(options.journal.group_delay_above_per_s);
  journal_options.commit_on_event_loop = options.journal.commit_on_io_thread;
  journal_options.commit_log_bytes = options.journal.commit_log_mb << 20;
  journal_options.background_idle_us = options.journal.background_idle_ms * 1000;
  journal_options.clock = &clock;
  journal_options.metrics = &metrics;
  Engine* raw = engine.get();
  journal_options.on_recovered_state = [raw](std::string_view key, std::string_view value) {
    Result<AccountState> state = DecodeAccountState(value);
    if (!state.ok()) {
      return Internal("stored state of account '" + std::string(key) +
                      "' is unreadable: " + state.status().message());
    }
    raw->accounts_.WithAccounts(
        key, key, [&state](AccountState& s, AccountState&) { s = std::move(state).value(); });
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
  VERDICT_ASSIGN_OR_RETURN(engine->drift_,
                           MakeDriftWatch(options, *engine->tenant_models_, metrics, clock));
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

Status Engine::AdmissionStatus(Scheduler::Admission admission) const {
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
        struct Gather {
          std::mutex mu;
          std::vector<Result<Decision>> results;
          size_t remaining;
          BatchCallback done;
        };
        auto gather = std::make_shared<Gather>();
        gather->remaining = items.size();
        gather->done = std::move(done);
        gather->results.reserve(items.size());
        for (size_t i = 0; i < items.size(); ++i)
          gather->results.push_back(Status(StatusCode::kInternal, "not decided"));
        auto complete = [gather](size_t index, Result<Decision> result) {
          bool last;
          {
            std::lock_guard lock(gather->mu);
            gather->results[index] = std::move(result);
            last = --gather->remaining == 0;
          }
          if (last) gather->done(std::move(gather->results));
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

void Engine::Decide(const Transaction& txn, const Caller& caller, int64_t received_ns,
                    bool fallback, DecisionCallback done) {
  const int64_t start_ns = clock_.MonotonicNanos();
  if (!journal_->healthy()) {
    // Fail closed (I1): nothing is decided that could not be made durable.
    return done(journal_->health());
  }
  auto decision = std::make_shared<Decision>();
  decision->decision_id = ids_.Next();
  decision->transaction_id = txn.transaction_id;
  // One policy for the whole decision, even if another is activated meanwhile (I4): the
  // tenant's own, else the deployment's.
  const std::shared_ptr<const ActivePolicy> active_policy = policies_.For(caller.tenant);
  decision->policy = active_policy->ref();

  // One model set for the whole decision, whatever is activated meanwhile (I4): the sender's
  // account says whether the canary or the primary decides. The tenant's own models, else the
  // deployment's.
  const lifecycle::TenantModels::Resolved resolved = tenant_models_->Current(caller.tenant);
  const std::shared_ptr<const lifecycle::ModelSet>& models = resolved.set;
  const lifecycle::ModelSet::Assignment assigned = models->Assign(txn.sender.ref.account);
  const lifecycle::ScoringModel* model = assigned.decider;
  std::string fallback_why;
  // Drift level 3 freezes the model it watches until an operator clears it. A tenant's own
  // model has its own monitor; the deployment's is shared by the tenants that use it.
  monitor::DriftMonitor* const drift =
      drift_ != nullptr && model != nullptr
          ? drift_->For(resolved.own ? std::string_view(caller.tenant) : std::string_view(),
                        model->ref().name, model->ref().version)
          : nullptr;
  const bool drift_watched = drift != nullptr;
  const bool drift_frozen = drift_watched && drift->frozen();
  if (model == nullptr) {
    fallback_why = "no model is configured";
  } else if (drift_frozen) {
    fallback_why = "drift level 3 froze the model until an operator clears it";
  } else if (fallback) {
    fallback_why = "the model could not finish before the deadline";
  }
  // Settled under the locks, after the idempotency check: a half-open breaker's probe must
  // only be taken by a decision that will report back how the model did.
  bool use_model = false;
  if (model != nullptr) decision->model = model->ref();

  std::string canonical = CanonicalTransactionJson(txn);
  FeatureVector features{};
  const FeatureView view{features, kFeatureNames, kFeatureSchemaVersion};
  int64_t features_done_ns = 0;
  int64_t model_done_ns = 0;
  int64_t explain_ns = 0;  // TreeSHAP time, counted in the model stage
  int64_t policy_done_ns = 0;
  std::optional<double> score;
  PolicyResult policy;
  // What happened under the stripe locks: decided and enqueued, replayed, or refused.
  std::optional<journal::StoredRecord> replay;
  Status refused;
  // The journal's writer may commit before this worker has finished its bookkeeping; whichever
  // of the two comes second sends the answer.
  struct Completion {
    std::mutex mu;
    std::optional<Result<journal::CommitInfo>> commit;
    std::function<void(const Result<journal::CommitInfo>&)> answer;  // set when ready
  };
  auto completion = std::make_shared<Completion>();

  // Account state is the tenant's own (I7): the same account name under two tenants is two
  // accounts.
  const std::string sender_key = TenantAccountKey(caller.tenant, txn.sender.ref.account);
  const std::string receiver_key = TenantAccountKey(caller.tenant, txn.receiver.ref.account);
  accounts_.WithAccounts(
      sender_key, receiver_key, [&](AccountState& sender, AccountState& receiver) {
        // Idempotency under the locks of the accounts this transaction touches: a retry of the
        // same transaction serializes with the original.
        Result<journal::IdempotencyCheck> check =
            journal_->CheckIdempotency(caller.tenant, txn.transaction_id, canonical);
        if (!check.ok()) {
          refused = check.status();
          return;
        }
        if (check->verdict == journal::Idempotency::kReplay) {
          replay = std::move(check->existing);
          return;
        }
        if (check->verdict == journal::Idempotency::kConflict) {
          refused = Status(StatusCode::kAlreadyExists,
                           "transaction_id " + txn.transaction_id +
                               " was already decided for a different transaction body",
                           "transaction_id");
          return;
        }
        if (fallback_why.empty() && !breaker_->Allow(start_ns / 1000)) {
          fallback_why = "the model's circuit breaker is open";
        }
        use_model = fallback_why.empty();
        decision->path = use_model ? DecisionPath::kModel : DecisionPath::kFallback;
        ExtractFeatures(txn, sender, receiver, &features);
        features_done_ns = clock_.MonotonicNanos();
        if (use_model) score = model->Score(view);
        model_done_ns = clock_.MonotonicNanos();
        // The breaker hears the model's outcome here, where it is known: a decision refused
        // later (by the journal) must not leave a half-open probe unreported.
        if (use_model) {
          RecordModelOutcome(MicrosBetween(features_done_ns, model_done_ns), model_done_ns);
        }
        policy = active_policy->Evaluate(txn, view, score);
        decision->outcome = policy.outcome;
        decision->reasons = std::move(policy.reasons);
        decision->score = score.value_or(0);
        // Explanations only where a person will read them (review, block), made before the
        // record so that the journal keeps what was answered; TreeSHAP needs only the feature
        // values, and the locks are held longer only for the rare non-allow decision.
        if (use_model && decision->outcome != Outcome::kAllow) {
          const int64_t explain_start_ns = clock_.MonotonicNanos();
          decision->contributions = model->Explain(view, kTopContributions);
          explain_ns = clock_.MonotonicNanos() - explain_start_ns;
        }
        if (!use_model) {
          decision->reasons.push_back({drift_frozen ? "DRIFT_FREEZE" : "FALLBACK",
                                       drift_frozen ? "drift" : "scheduler",
                                       "decided by rules alone: " + fallback_why});
        }
        // The stages so far go into the record too; its journal time stays 0 and its total
        // ends here, before the commit whose duration the record cannot know.
        policy_done_ns = clock_.MonotonicNanos();
        StageTimings& t = decision->timings;
        t.queue_us = std::max<int64_t>(0, MicrosBetween(received_ns, start_ns));
        t.features_us = MicrosBetween(start_ns, features_done_ns);
        // Explanation time counts as model time, not policy time.
        t.model_us = MicrosBetween(features_done_ns, model_done_ns + explain_ns);
        t.policy_us = MicrosBetween(features_done_ns, policy_done_ns) - t.model_us;
        t.total_us = t.queue_us + MicrosBetween(start_ns, policy_done_ns);

        // Applied in memory and journaled under the same locks, so journal order is the order of
        // state application (I2). A journal refusal restores the state as it was.
        const bool same_account = &sender == &receiver;
        AccountState sender_before = sender;
        std::optional<AccountState> receiver_before;
        if (!same_account) receiver_before = receiver;
        ApplyTransaction(txn, sender, receiver);

        journal::JournalEntry entry;
        entry.urgent = txn.priority == Priority::kRealtime;
        journal::JournalRecord& record = entry.record;
        record.decided_at_us = clock_.NowMicros();
        record.timestamp_us = txn.timestamp_us;
        record.tenant = caller.tenant;
        record.principal = caller.principal;
        record.canonical_input = std::move(canonical);
        record.accounts = {txn.sender.ref.account};
        if (!same_account) record.accounts.push_back(txn.receiver.ref.account);
        record.feature_schema_version = std::string(kFeatureSchemaVersion);
        record.features.assign(features.begin(), features.end());
        record.decision = *decision;
        entry.state_updates.push_back({sender_key, EncodeAccountState(sender), false});
        if (!same_account) {
          entry.state_updates.push_back({receiver_key, EncodeAccountState(receiver), false});
        }
        // A review or block decision opens a case once durable; commit callbacks run in
        // sequence order, which the case store's high-water mark relies on.
        std::shared_ptr<cases::CaseFeed> case_feed =
            decision->outcome != Outcome::kAllow ? case_feed_ : nullptr;
        Result<uint64_t> enqueued = journal_->Enqueue(
            std::move(entry), [completion, case_feed](const Result<journal::CommitInfo>& commit) {
              if (case_feed != nullptr && commit.ok()) case_feed->Push(commit->seq);
              std::function<void(const Result<journal::CommitInfo>&)> answer;
              {
                std::lock_guard lock(completion->mu);
                if (!completion->answer) {
                  completion->commit = commit;
                  return;
                }
                answer = std::move(completion->answer);
              }
              answer(commit);
            });
        if (!enqueued.ok()) {
          sender = std::move(sender_before);
          if (receiver_before) receiver = std::move(*receiver_before);
          refused = enqueued.status();
        }
      });

  if (!refused.ok()) return done(refused);
  if (replay) {
    // The stored decision, exactly as first answered (same decision_id), once it is durable.
    auto stored = std::make_shared<Decision>(std::move(replay->record.decision));
    const uint64_t stored_seq = replay->record.seq;
    return journal_->WhenDurable(stored_seq, [stored, done](const Status& status) {
      if (!status.ok()) return done(status);
      done(*stored);
    });
  }
  const double decided_score = decision->score;
  const Outcome decided_outcome = decision->outcome;

  const StageTimings& t = decision->timings;
  const int64_t service_us = MicrosBetween(start_ns, clock_.MonotonicNanos());
  if (use_model || model == nullptr) {
    scheduler_->estimator().RecordFull(service_us);
  } else {
    scheduler_->estimator().RecordFallback(service_us);
  }
  metrics_.queue->Observe(static_cast<double>(t.queue_us) * 1e-6);
  metrics_.features->Observe(static_cast<double>(t.features_us) * 1e-6);
  metrics_.model->Observe(static_cast<double>(t.model_us) * 1e-6);
  metrics_.policy->Observe(static_cast<double>(t.policy_us) * 1e-6);

  // Acknowledge only once durable (I1).
  const int64_t journal_start_ns = clock_.MonotonicNanos();
  // A copy: the journal's final flush may answer after the engine's members are gone; the
  // series' metrics belong to the registry, which outlives the engine.
  const TenantMetrics::Series tenant_series = tenant_metrics_->For(caller.tenant);
  auto answer = [this, decision, done, journal_start_ns, start_ns,
                 tenant_series](const Result<journal::CommitInfo>& commit) {
    if (!commit.ok()) return done(commit.status());
    const int64_t now = clock_.MonotonicNanos();
    StageTimings& timings = decision->timings;
    timings.journal_us = MicrosBetween(journal_start_ns, now);
    timings.total_us = timings.queue_us + MicrosBetween(start_ns, now);
    metrics_.journal->Observe(static_cast<double>(timings.journal_us) * 1e-6);
    metrics_.total->Observe(static_cast<double>(timings.total_us) * 1e-6);
    tenant_series.decisions[static_cast<int>(decision->outcome)][static_cast<int>(decision->path)]
        ->Increment();
    tenant_series.latency->Observe(static_cast<double>(timings.total_us) * 1e-6);
    done(*decision);
  };
  std::optional<Result<journal::CommitInfo>> already;
  {
    std::lock_guard lock(completion->mu);
    if (completion->commit) {
      already = std::move(completion->commit);
    } else {
      completion->answer = answer;  // the journal answers when the group is durable
    }
  }
  if (already) answer(*already);

  // Drift bookkeeping, like the candidate's comparison, runs after the answer is handed off:
  // it is no part of the decision's latency or of any stage's timing.
  if (drift_watched) {
    drift->Observe(features, score.value_or(std::numeric_limits<double>::quiet_NaN()));
  }
  // The candidate's comparison runs after the answer is handed off, so it never delays this
  // decision; it is skipped on the fallback path, where the deadline is already tight.
  if (use_model && assigned.observer != nullptr) {
    CompareModels(txn, view, *active_policy, *models, assigned, decided_score, decided_outcome,
                  MicrosBetween(features_done_ns, model_done_ns));
  }
}

void Engine::RecordModelOutcome(int64_t score_us, int64_t done_ns) {
  if (score_us > options_.model_budget_us) {
    metrics_.model_overruns->Increment();
    breaker_->RecordFailure(done_ns / 1000);
  } else {
    breaker_->RecordSuccess();
  }
}

void Engine::CompareModels(const Transaction& txn, const FeatureView& view,
                           const ActivePolicy& policy, const lifecycle::ModelSet& models,
                           const lifecycle::ModelSet::Assignment& assigned, double decided_score,
                           Outcome decided_outcome, int64_t decided_model_us) {
  if (models.stats == nullptr) return;
  const int64_t start_ns = clock_.MonotonicNanos();
  const double other_score = assigned.observer->Score(view);
  const int64_t other_us = MicrosBetween(start_ns, clock_.MonotonicNanos());
  const Outcome other_outcome = policy.Evaluate(txn, view, other_score).outcome;
  lifecycle::DivergenceStats& stats = *models.stats;
  if (assigned.candidate_decides) {
    stats.RecordCandidateLatency(decided_model_us);
    stats.RecordComparison(other_score, other_outcome, decided_score, decided_outcome);
  } else {
    stats.RecordCandidateLatency(other_us);
    stats.RecordComparison(decided_score, decided_outcome, other_score, other_outcome);
  }
}

Result<std::optional<Decision>> Engine::FindDecision(std::string_view tenant,
                                                     const Uuid& decision_id) const {
  VERDICT_ASSIGN_OR_RETURN(auto record, journal_->FindByDecisionId(decision_id));
  if (!record || record->tenant != tenant) return std::optional<Decision>();
  return std::optional<Decision>(std::move(record->decision));
}

Result<std::optional<Decision>> Engine::FindDecisionForTransaction(
    std::string_view tenant, std::string_view transaction_id) const {
  VERDICT_ASSIGN_OR_RETURN(auto stored, journal_->FindByTransaction(tenant, transaction_id));
  // A decision still waiting for its group commit has not been acknowledged: not found yet.
  if (!stored || !stored->durable) return std::optional<Decision>();
  return std::optional<Decision>(std::move(stored->record.decision));
}

Result<std::vector<Decision>> Engine::RecentDecisionsForAccount(std::string_view tenant,
                                                                std::string_view account,
                                                                size_t limit) const {
  VERDICT_ASSIGN_OR_RETURN(auto records, journal_->ListByAccount(tenant, account, limit));
  std::vector<Decision> out;
  out.reserve(records.size());
  for (auto& record : records) out.push_back(std::move(record.decision));
  return out;
}

bool Engine::Ready(std::string* detail) const {
  if (!journal_->healthy()) {
    *detail = journal_->health().message();
    return false;
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
