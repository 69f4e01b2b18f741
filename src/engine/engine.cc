#include "engine/engine.h"

#include <spdlog/spdlog.h>

#include <future>
#include <mutex>

#include "api/transaction_json.h"
#include "features/account_state_codec.h"
#include "features/feature_extractor.h"
#include "features/feature_vector.h"
#include "policy/policy_bundle.h"

namespace verdict {
namespace {

int64_t MicrosBetween(int64_t from_ns, int64_t to_ns) { return (to_ns - from_ns) / 1000; }

// Decisions other than allow carry this many model explanations.
constexpr size_t kTopContributions = 4;

// Until tenants and keys exist (issue 9), everything belongs to one tenant and principal.
constexpr std::string_view kDefaultTenant = "default";
constexpr std::string_view kDefaultPrincipal = "anonymous";

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
  for (Outcome outcome : {Outcome::kAllow, Outcome::kReview, Outcome::kBlock}) {
    for (DecisionPath path : {DecisionPath::kModel, DecisionPath::kFallback}) {
      metrics_.decisions[static_cast<int>(outcome)][static_cast<int>(path)] =
          metrics.GetCounter("verdict_engine_decisions_total", "Decisions by outcome and path",
                             {{"outcome", std::string(OutcomeName(outcome))},
                              {"path", std::string(DecisionPathName(path))}});
    }
  }
  metrics_.model_overruns = metrics.GetCounter("verdict_engine_model_overruns_total",
                                               "Model stages slower than engine.model_budget_us");
  metrics_.breaker_open = metrics.GetGauge("verdict_engine_model_breaker_open",
                                           "1 while the model's circuit breaker is open");
}

Engine::~Engine() {
  if (scheduler_) scheduler_->Stop();
}

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options,
                                               MetricsRegistry& metrics, const Clock& clock) {
  std::unique_ptr<Engine> engine(new Engine(options, metrics, clock));
  if (options.policy_path.empty()) {
    VERDICT_ASSIGN_OR_RETURN(auto rules, FixedRules::Create(options.rules, kFeatureNames));
    engine->policy_.store(std::make_shared<const ActivePolicy>(std::move(rules)));
  } else {
    auto compiled = LoadBundle(options.policy_path, kFeatureNames);
    if (!compiled.ok()) {
      return InvalidArgument("policy " + options.policy_path + ": " + compiled.status().message(),
                             "policy.path");
    }
    engine->policy_.store(std::make_shared<const ActivePolicy>(std::move(compiled).value()));
  }
  if (!options.model.path.empty()) {
    VERDICT_ASSIGN_OR_RETURN(engine->model_, ModelStage::Create(options.model, kFeatureNames));
    spdlog::info("model {} v{} ({} trees, sha256 {})", options.model.name, options.model.version,
                 engine->model_->forest().num_trees(), engine->model_->ref().sha256.substr(0, 12));
  } else {
    spdlog::warn("no model configured (model.path): every decision takes the fallback path");
  }
  journal::JournalOptions journal_options;
  journal_options.data_dir = options.data_dir + "/journal";
  journal_options.durability =
      options.journal.sync ? journal::Durability::kSync : journal::Durability::kAsync;
  journal_options.checkpoint_every_records = options.journal.checkpoint_every_records;
  journal_options.checkpoint_interval_us = options.journal.checkpoint_interval_ms * 1000;
  journal_options.kek_file = options.journal.kek_file;
  journal_options.min_free_bytes = options.journal.min_free_mb << 20;
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
  engine->breaker_ = std::make_unique<CircuitBreaker>(options.sched.breaker);
  engine->scheduler_ = std::make_unique<Scheduler>(options.sched, clock, metrics);
  spdlog::info("engine: {} workers, {} account stripes, rules {} ({}){}",
               engine->scheduler_->worker_count(), options.account_stripes,
               engine->policy()->ref().version, engine->policy()->ref().sha256.substr(0, 12),
               options.sched.fifo ? ", FIFO scheduling (baseline mode)" : "");
  return engine;
}

Status Engine::AdmissionStatus(Scheduler::Admission admission) const {
  switch (admission) {
    case Scheduler::Admission::kQueued:
      return Status::Ok();
    case Scheduler::Admission::kBulkFull:
      return Status(StatusCode::kResourceExhausted,
                    "bulk capacity is exhausted; retry after the indicated delay");
    case Scheduler::Admission::kFull:
      return Unavailable("the engine's queue is full; retry shortly");
    case Scheduler::Admission::kStopping:
      return Unavailable("the engine is stopping");
  }
  return Unavailable("not admitted");
}

Status Engine::Submit(Transaction txn, int64_t received_ns, DecisionCallback done) {
  const Priority priority = txn.priority;
  const auto deadline_ms = txn.deadline_ms;
  return AdmissionStatus(
      scheduler_->Submit(priority, deadline_ms, received_ns / 1000,
                         [this, txn = std::move(txn), received_ns, done = std::move(done)](
                             bool fallback, int64_t) mutable {
                           Decide(txn, received_ns, fallback, std::move(done));
                         }));
}

Status Engine::SubmitBatch(std::vector<Result<Transaction>> items, int64_t received_ns,
                           BatchCallback done) {
  Priority priority = Priority::kBulk;
  std::optional<int32_t> deadline_ms;
  for (const auto& item : items) {
    if (!item.ok()) continue;
    priority = std::min(priority, item->priority);  // enum order: realtime is most urgent
    if (item->deadline_ms && (!deadline_ms || *item->deadline_ms < *deadline_ms)) {
      deadline_ms = item->deadline_ms;
    }
  }
  return AdmissionStatus(scheduler_->Submit(
      priority, deadline_ms, received_ns / 1000,
      [this, items = std::move(items), received_ns, done = std::move(done)](
          bool fallback, int64_t deadline_us) mutable {
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
          // Later items re-check the deadline: a long batch degrades its tail, not its head.
          const bool late = !scheduler_->estimator().FullPathFits(clock_.MonotonicNanos() / 1000,
                                                                  deadline_us);
          Decide(*items[i], received_ns, fallback || late,
                 [complete, i](Result<Decision> d) { complete(i, std::move(d)); });
        }
      }));
}

Result<Decision> Engine::DecideAndWait(const Transaction& txn, int64_t received_ns, bool fallback) {
  std::promise<Result<Decision>> promise;
  auto future = promise.get_future();
  Decide(txn, received_ns, fallback,
         [&promise](Result<Decision> d) { promise.set_value(std::move(d)); });
  return future.get();
}

void Engine::Decide(const Transaction& txn, int64_t received_ns, bool fallback,
                    DecisionCallback done) {
  const int64_t start_ns = clock_.MonotonicNanos();
  if (!journal_->healthy()) {
    // Fail closed (I1): nothing is decided that could not be made durable.
    return done(journal_->health());
  }
  auto decision = std::make_shared<Decision>();
  decision->decision_id = ids_.Next();
  decision->transaction_id = txn.transaction_id;
  // One policy for the whole decision, even if another is activated meanwhile (I4).
  const std::shared_ptr<const ActivePolicy> active_policy = policy_.load();
  decision->policy = active_policy->ref();

  const ModelStage* model = model_.get();
  std::string fallback_why;
  if (model == nullptr) {
    fallback_why = "no model is configured";
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
  std::optional<double> score;
  PolicyResult policy;
  // What happened under the stripe locks: decided and enqueued, replayed, or refused.
  std::optional<journal::StoredRecord> replay;
  Status refused;
  // The journal's writer may commit before this worker has finished the explanation; whichever
  // of the two comes second sends the answer.
  struct Completion {
    std::mutex mu;
    std::optional<Result<journal::CommitInfo>> commit;
    std::function<void(const Result<journal::CommitInfo>&)> answer;  // set when ready
  };
  auto completion = std::make_shared<Completion>();

  accounts_.WithAccounts(
      txn.sender.ref.account, txn.receiver.ref.account,
      [&](AccountState& sender, AccountState& receiver) {
        // Idempotency under the locks of the accounts this transaction touches: a retry of the
        // same transaction serializes with the original.
        Result<journal::IdempotencyCheck> check =
            journal_->CheckIdempotency(kDefaultTenant, txn.transaction_id, canonical);
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
        policy = active_policy->Evaluate(txn, view, score);
        decision->outcome = policy.outcome;
        decision->reasons = std::move(policy.reasons);
        decision->score = score.value_or(0);
        if (!use_model) {
          decision->reasons.push_back(
              {"FALLBACK", "scheduler", "decided by rules alone: " + fallback_why});
        }

        // Applied in memory and journaled under the same locks, so journal order is the order of
        // state application (I2). A journal refusal restores the state as it was.
        const bool same_account = &sender == &receiver;
        AccountState sender_before = sender;
        std::optional<AccountState> receiver_before;
        if (!same_account) receiver_before = receiver;
        ApplyTransaction(txn, sender, receiver);

        journal::JournalEntry entry;
        journal::JournalRecord& record = entry.record;
        record.decided_at_us = clock_.NowMicros();
        record.timestamp_us = txn.timestamp_us;
        record.tenant = kDefaultTenant;
        record.principal = kDefaultPrincipal;
        record.canonical_input = std::move(canonical);
        record.accounts = {txn.sender.ref.account};
        if (!same_account) record.accounts.push_back(txn.receiver.ref.account);
        record.feature_schema_version = std::string(kFeatureSchemaVersion);
        record.features.assign(features.begin(), features.end());
        record.decision = *decision;
        entry.state_updates.push_back({txn.sender.ref.account, EncodeAccountState(sender), false});
        if (!same_account) {
          entry.state_updates.push_back(
              {txn.receiver.ref.account, EncodeAccountState(receiver), false});
        }
        Result<uint64_t> enqueued = journal_->Enqueue(
            std::move(entry), [completion](const Result<journal::CommitInfo>& commit) {
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
  int64_t policy_done_ns = clock_.MonotonicNanos();
  if (use_model) {
    const int64_t model_us = MicrosBetween(features_done_ns, model_done_ns);
    if (model_us > options_.model_budget_us) {
      metrics_.model_overruns->Increment();
      breaker_->RecordFailure(model_done_ns / 1000);
    } else {
      breaker_->RecordSuccess();
    }
  }
  metrics_.breaker_open->Set(
      breaker_->state(policy_done_ns / 1000) == CircuitBreaker::State::kOpen ? 1 : 0);

  // Explanations only where a person will read them, and outside the stripe locks: TreeSHAP
  // needs no account state, only the feature values. The journal record keeps the features, so
  // the explanation can always be recomputed from it.
  if (use_model && decision->outcome != Outcome::kAllow) {
    decision->contributions = model->Explain(view, kTopContributions);
    const int64_t explained_ns = clock_.MonotonicNanos();
    model_done_ns += explained_ns - policy_done_ns;  // explanation time counts as model time
    policy_done_ns = explained_ns;
  }

  StageTimings& t = decision->timings;
  t.queue_us = std::max<int64_t>(0, MicrosBetween(received_ns, start_ns));
  t.features_us = MicrosBetween(start_ns, features_done_ns);
  t.model_us = MicrosBetween(features_done_ns, model_done_ns);
  t.policy_us = MicrosBetween(features_done_ns, policy_done_ns) - t.model_us;
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
  auto answer = [this, decision, done, journal_start_ns,
                 start_ns](const Result<journal::CommitInfo>& commit) {
    if (!commit.ok()) return done(commit.status());
    const int64_t now = clock_.MonotonicNanos();
    StageTimings& timings = decision->timings;
    timings.journal_us = MicrosBetween(journal_start_ns, now);
    timings.total_us = timings.queue_us + MicrosBetween(start_ns, now);
    metrics_.journal->Observe(static_cast<double>(timings.journal_us) * 1e-6);
    metrics_.total->Observe(static_cast<double>(timings.total_us) * 1e-6);
    metrics_.decisions[static_cast<int>(decision->outcome)][static_cast<int>(decision->path)]
        ->Increment();
    done(*decision);
  };
  std::optional<Result<journal::CommitInfo>> already;
  {
    std::lock_guard lock(completion->mu);
    if (completion->commit) {
      already = std::move(completion->commit);
    } else {
      completion->answer = answer;  // the writer thread answers when the group is durable
    }
  }
  if (already) answer(*already);
}

void Engine::ActivatePolicy(std::shared_ptr<const CompiledPolicy> compiled) {
  spdlog::info("policy {} ({}) activated", compiled->ref().version,
               compiled->ref().sha256.substr(0, 12));
  policy_.store(std::make_shared<const ActivePolicy>(std::move(compiled)));
}

Result<std::optional<Decision>> Engine::FindDecision(const Uuid& decision_id) const {
  VERDICT_ASSIGN_OR_RETURN(auto record, journal_->FindByDecisionId(decision_id));
  if (!record) return std::optional<Decision>();
  return std::optional<Decision>(std::move(record->decision));
}

Result<std::optional<Decision>> Engine::FindDecisionForTransaction(
    std::string_view transaction_id) const {
  VERDICT_ASSIGN_OR_RETURN(auto stored,
                           journal_->FindByTransaction(kDefaultTenant, transaction_id));
  // A decision still waiting for its group commit has not been acknowledged: not found yet.
  if (!stored || !stored->durable) return std::optional<Decision>();
  return std::optional<Decision>(std::move(stored->record.decision));
}

Result<std::vector<Decision>> Engine::RecentDecisionsForAccount(std::string_view account,
                                                                size_t limit) const {
  VERDICT_ASSIGN_OR_RETURN(auto records, journal_->ListByAccount(kDefaultTenant, account, limit));
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
