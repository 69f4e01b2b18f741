#include "engine/engine.h"

#include <spdlog/spdlog.h>

#include "features/feature_extractor.h"
#include "features/feature_vector.h"

namespace verdict {
namespace {

int64_t MicrosBetween(int64_t from_ns, int64_t to_ns) { return (to_ns - from_ns) / 1000; }

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
  metrics_.total = stage("total");
  for (Outcome outcome : {Outcome::kAllow, Outcome::kReview, Outcome::kBlock}) {
    for (DecisionPath path : {DecisionPath::kModel, DecisionPath::kFallback}) {
      metrics_.decisions[static_cast<int>(outcome)][static_cast<int>(path)] =
          metrics.GetCounter("verdict_engine_decisions_total", "Decisions by outcome and path",
                             {{"outcome", std::string(OutcomeName(outcome))},
                              {"path", std::string(DecisionPathName(path))}});
    }
  }
}

Engine::~Engine() {
  if (workers_) workers_->Stop();
}

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options,
                                               MetricsRegistry& metrics, const Clock& clock) {
  std::unique_ptr<Engine> engine(new Engine(options, metrics, clock));
  VERDICT_ASSIGN_OR_RETURN(engine->rules_, FixedRules::Create(options.rules, kFeatureNames));
  engine->workers_ = std::make_unique<WorkerPool>(options.workers, options.queue_capacity);
  spdlog::info("engine: {} workers, {} account stripes, rules {} ({})",
               engine->workers_->worker_count(), options.account_stripes,
               engine->rules_->ref().version, engine->rules_->ref().sha256.substr(0, 12));
  return engine;
}

bool Engine::Submit(Transaction txn, int64_t received_ns, DecisionCallback done) {
  return workers_->TrySubmit(
      [this, txn = std::move(txn), received_ns, done = std::move(done)]() mutable {
        done(Decide(txn, received_ns));
      });
}

bool Engine::SubmitBatch(std::vector<Result<Transaction>> items, int64_t received_ns,
                         BatchCallback done) {
  return workers_->TrySubmit(
      [this, items = std::move(items), received_ns, done = std::move(done)]() mutable {
        std::vector<Result<Decision>> out;
        out.reserve(items.size());
        for (const Result<Transaction>& item : items) {
          if (item.ok()) {
            out.push_back(Decide(*item, received_ns));
          } else {
            out.push_back(item.status());
          }
        }
        done(std::move(out));
      });
}

Result<Decision> Engine::Decide(const Transaction& txn, int64_t received_ns) {
  const int64_t start_ns = clock_.MonotonicNanos();
  Decision decision;
  decision.decision_id = ids_.Next();
  decision.transaction_id = txn.transaction_id;
  decision.policy = rules_->ref();
  decision.path = DecisionPath::kFallback;  // no model stage yet: rules alone decide

  FeatureVector features{};
  int64_t features_done_ns = 0;
  int64_t model_done_ns = 0;
  PolicyResult policy;
  accounts_.WithAccounts(txn.sender.ref.account, txn.receiver.ref.account,
                         [&](AccountState& sender, AccountState& receiver) {
                           ExtractFeatures(txn, sender, receiver, &features);
                           features_done_ns = clock_.MonotonicNanos();
                           model_done_ns = features_done_ns;
                           FeatureView view{features, kFeatureNames, kFeatureSchemaVersion};
                           policy = rules_->Evaluate(txn, view, std::nullopt);
                           ApplyTransaction(txn, sender, receiver);
                         });
  const int64_t policy_done_ns = clock_.MonotonicNanos();

  decision.outcome = policy.outcome;
  decision.reasons = std::move(policy.reasons);
  decision.score = 0;
  StageTimings& t = decision.timings;
  t.queue_us = std::max<int64_t>(0, MicrosBetween(received_ns, start_ns));
  t.features_us = MicrosBetween(start_ns, features_done_ns);
  t.model_us = MicrosBetween(features_done_ns, model_done_ns);
  t.policy_us = MicrosBetween(model_done_ns, policy_done_ns);
  t.total_us = t.queue_us + MicrosBetween(start_ns, clock_.MonotonicNanos());

  metrics_.queue->Observe(static_cast<double>(t.queue_us) * 1e-6);
  metrics_.features->Observe(static_cast<double>(features_done_ns - start_ns) * 1e-9);
  metrics_.model->Observe(static_cast<double>(model_done_ns - features_done_ns) * 1e-9);
  metrics_.policy->Observe(static_cast<double>(policy_done_ns - model_done_ns) * 1e-9);
  metrics_.total->Observe(static_cast<double>(t.total_us) * 1e-6);
  metrics_.decisions[static_cast<int>(decision.outcome)][static_cast<int>(decision.path)]
      ->Increment();
  return decision;
}

bool Engine::Ready(std::string* why) const {
  (void)why;
  return true;
}

}  // namespace verdict
