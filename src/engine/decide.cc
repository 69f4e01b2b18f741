// Engine::Decide in its steps: versions, idempotency, path, features, score, policy, explain,
// journal, answer. The steps from the idempotency check to the journal's sequence number run
// under the stripe locks of both accounts (DESIGN §3: I2, I3); the rest runs before or after
// them. Each step reads and writes the decision's DecisionRun; the answer is finished by
// PendingDecision on whichever thread completes it.
#include <algorithm>
#include <limits>

#include "api/transaction_json.h"
#include "engine/decision_run.h"
#include "engine/engine.h"
#include "engine/stored_state.h"
#include "features/account_state_codec.h"
#include "features/feature_extractor.h"
#include "monitor/drift_monitor.h"
#include "monitor/drift_watch.h"
#include "sched/circuit_breaker.h"
#include "sched/scheduler.h"

namespace verdict {
namespace {

int64_t MicrosBetween(int64_t from_ns, int64_t to_ns) { return (to_ns - from_ns) / 1000; }

// Decisions other than allow carry this many model explanations.
constexpr size_t kTopContributions = 4;

}  // namespace

void Engine::Decide(const Transaction& txn, const Caller& caller, int64_t received_ns,
                    bool fallback, DecisionCallback done) {
  const int64_t start_ns = clock_.MonotonicNanos();
  if (!journal_->healthy()) {
    // Fail closed (I1): nothing is decided that could not be made durable.
    return done(journal_->health());
  }
  DecisionRun run(txn, caller, received_ns, start_ns);
  run.pending =
      std::make_shared<PendingDecision>(std::move(done), clock_, metrics_.journal, metrics_.total);
  run.pending->decision.decision_id = ids_.Next();
  run.pending->decision.transaction_id = txn.transaction_id;
  TraceDecision(run);
  ChooseVersions(run, fallback);
  run.canonical = CanonicalTransactionJson(txn);
  // Account state is the tenant's own (I7): the same account name under two tenants is two
  // accounts.
  run.sender_key = TenantAccountKey(caller.tenant, txn.sender.ref.account);
  run.receiver_key = TenantAccountKey(caller.tenant, txn.receiver.ref.account);
  accounts_.WithAccounts(run.sender_key, run.receiver_key,
                         [this, &run](AccountState& sender, AccountState& receiver) {
                           DecideUnderLocks(run, sender, receiver);
                         });
  if (!run.refused.ok()) return run.pending->Refuse(run.refused);
  if (run.replay) return AnswerReplay(run);
  Answer(run);
  ObserveAfterAnswer(run);
}

void Engine::TraceDecision(DecisionRun& run) {
  // The caller's trace (or a sampled one of ours) is answered and journaled with the decision;
  // its spans are made after the answer, off the locks (PendingDecision::RecordTrace).
  std::optional<tracing::DecisionTrace> trace = tracer_->Begin(run.caller.trace);
  if (!trace) return;
  run.pending->decision.trace = {trace->trace_id, trace->span_id, trace->sampled};
  if (tracer_->Records(*trace)) {
    run.pending->TraceWith(tracer_, std::move(*trace), run.received_ns, run.caller.tenant);
  }
}

void Engine::ChooseVersions(DecisionRun& run, bool fallback) {
  Decision& decision = run.pending->decision;
  // The tenant's own policy, else the deployment's.
  run.policy = policies_.For(run.caller.tenant);
  decision.policy = run.policy->ref();
  // The sender's account says whether the canary or the primary decides. The tenant's own
  // models, else the deployment's.
  run.models = tenant_models_->Current(run.caller.tenant);
  run.assigned = run.models.set->Assign(run.txn.sender.ref.account);
  run.model = run.assigned.decider;
  // Drift level 3 freezes the model it watches until an operator clears it. A tenant's own
  // model has its own monitor; the deployment's is shared by the tenants that use it.
  if (drift_ != nullptr && run.model != nullptr) {
    run.drift =
        drift_->For(run.models.own ? std::string_view(run.caller.tenant) : std::string_view(),
                    run.model->ref().name, run.model->ref().version);
  }
  run.drift_frozen = run.drift != nullptr && run.drift->frozen();
  if (run.model == nullptr) {
    run.fallback_why = "no model is configured";
  } else if (run.drift_frozen) {
    run.fallback_why = "drift level 3 froze the model until an operator clears it";
  } else if (fallback) {
    run.fallback_why = "the model could not finish before the deadline";
  }
  if (run.model != nullptr) decision.model = run.model->ref();
}

void Engine::DecideUnderLocks(DecisionRun& run, AccountState& sender, AccountState& receiver) {
  run.refused = CheckIdempotency(run);
  if (!run.refused.ok() || run.replay) return;
  ChoosePath(run);
  ReadFeatures(run, sender, receiver);
  Score(run);
  ApplyPolicy(run);
  Explain(run);
  StampTimings(run);
  run.refused = JournalDecision(run, sender, receiver);
}

Status Engine::CheckIdempotency(DecisionRun& run) {
  // Under the locks of the accounts this transaction touches: a retry of the same transaction
  // serializes with the original.
  Result<journal::IdempotencyCheck> check =
      journal_->CheckIdempotency(run.caller.tenant, run.txn.transaction_id, run.canonical);
  if (!check.ok()) return check.status();
  if (check->existing && check->existing->record.kind == journal::RecordKind::kHistory) {
    // Imported history was applied to the accounts but never decided: there is no decision to
    // answer with, and deciding it now would count it twice.
    return Status(StatusCode::kAlreadyExists,
                  "transaction_id " + run.txn.transaction_id +
                      " was imported as history (verdict import) and has no decision",
                  "transaction_id");
  }
  switch (check->verdict) {
    case journal::Idempotency::kNew:
      return Status::Ok();
    case journal::Idempotency::kReplay:
      run.replay = std::move(check->existing);
      return Status::Ok();
    case journal::Idempotency::kConflict:
      break;
  }
  return Status(StatusCode::kAlreadyExists,
                "transaction_id " + run.txn.transaction_id +
                    " was already decided for a different transaction body",
                "transaction_id");
}

void Engine::ChoosePath(DecisionRun& run) {
  // Only now, after the idempotency check: a half-open breaker's probe must only be taken by a
  // decision that will report back how the model did.
  if (run.fallback_why.empty() && !breaker_->Allow(run.start_ns / 1000)) {
    run.fallback_why = "the model's circuit breaker is open";
  }
  run.use_model = run.fallback_why.empty();
  run.pending->decision.path = run.use_model ? DecisionPath::kModel : DecisionPath::kFallback;
}

void Engine::ReadFeatures(DecisionRun& run, const AccountState& sender,
                          const AccountState& receiver) {
  ExtractFeatures(run.txn, sender, receiver, &run.features);
  run.features_done_ns = clock_.MonotonicNanos();
}

void Engine::Score(DecisionRun& run) {
  if (run.use_model) {
    run.score = run.model->Score(run.view);
    run.anomaly = run.model->Anomaly(run.view);
  }
  run.model_done_ns = clock_.MonotonicNanos();
  // The breaker hears the model's outcome here, where it is known: a decision refused later
  // (by the journal) must not leave a half-open probe unreported.
  if (run.use_model) {
    RecordModelOutcome(MicrosBetween(run.features_done_ns, run.model_done_ns), run.model_done_ns);
  }
}

void Engine::ApplyPolicy(DecisionRun& run) {
  Decision& decision = run.pending->decision;
  PolicyResult result = run.policy->Evaluate(run.txn, run.view, run.score);
  decision.outcome = result.outcome;
  decision.reasons = std::move(result.reasons);
  decision.score = run.score.value_or(0);
  if (run.score) {
    decision.anomaly = run.anomaly;
    decision.risk = run.model->Risk(*run.score, run.anomaly);
  }
  if (!run.use_model) {
    decision.reasons.push_back({run.drift_frozen ? "DRIFT_FREEZE" : "FALLBACK",
                                run.drift_frozen ? "drift" : "scheduler",
                                "decided by rules alone: " + run.fallback_why});
  }
}

void Engine::Explain(DecisionRun& run) {
  // Explanations only where a person will read them (review, block), made before the record so
  // that the journal keeps what was answered; TreeSHAP needs only the feature values, and the
  // locks are held longer only for the rare non-allow decision.
  Decision& decision = run.pending->decision;
  if (!run.use_model || decision.outcome == Outcome::kAllow) return;
  const int64_t explain_start_ns = clock_.MonotonicNanos();
  decision.contributions = run.model->Explain(run.view, kTopContributions);
  decision.anomaly_contributions = run.model->ExplainAnomaly(run.view, kTopContributions);
  run.explain_ns = clock_.MonotonicNanos() - explain_start_ns;
}

void Engine::StampTimings(DecisionRun& run) {
  // The stages so far go into the record too; its journal time stays 0 and its total ends
  // here, before the commit whose duration the record cannot know.
  run.policy_done_ns = clock_.MonotonicNanos();
  StageTimings& t = run.pending->decision.timings;
  t.queue_us = std::max<int64_t>(0, MicrosBetween(run.received_ns, run.start_ns));
  t.features_us = MicrosBetween(run.start_ns, run.features_done_ns);
  // Explanation time counts as model time, not policy time.
  t.model_us = MicrosBetween(run.features_done_ns, run.model_done_ns + run.explain_ns);
  t.policy_us = MicrosBetween(run.features_done_ns, run.policy_done_ns) - t.model_us;
  t.total_us = t.queue_us + MicrosBetween(run.start_ns, run.policy_done_ns);
}

Status Engine::JournalDecision(DecisionRun& run, AccountState& sender, AccountState& receiver) {
  // Applied in memory and journaled under the same locks, so journal order is the order of
  // state application (I2). A journal refusal restores both accounts as they were.
  const bool same_account = &sender == &receiver;
  AccountState sender_before = sender;
  std::optional<AccountState> receiver_before;
  if (!same_account) receiver_before = receiver;
  ApplyTransaction(run.txn, sender, receiver);

  const Decision& decision = run.pending->decision;
  journal::JournalEntry entry;
  entry.urgent = run.txn.priority == Priority::kRealtime;
  journal::JournalRecord& record = entry.record;
  record.decided_at_us = clock_.NowMicros();
  record.timestamp_us = run.txn.timestamp_us;
  record.tenant = run.caller.tenant;
  record.principal = run.caller.principal;
  record.canonical_input = std::move(run.canonical);
  record.accounts = {run.txn.sender.ref.account};
  if (!same_account) record.accounts.push_back(run.txn.receiver.ref.account);
  record.feature_schema_version = std::string(kFeatureSchemaVersion);
  record.features.assign(run.features.begin(), run.features.end());
  record.decision = decision;
  const journal::StateSealer* sealer = journal_->state_sealer();
  entry.state_updates.push_back(StoredStateUpdate(sealer, run.sender_key, sender));
  if (!same_account) {
    entry.state_updates.push_back(StoredStateUpdate(sealer, run.receiver_key, receiver));
  }
  // A review or block decision opens a case once durable; commit callbacks run in sequence
  // order, which the case store's high-water mark relies on.
  std::shared_ptr<cases::CaseFeed> case_feed =
      decision.outcome != Outcome::kAllow ? case_feed_ : nullptr;
  Result<uint64_t> enqueued = journal_->Enqueue(
      std::move(entry),
      [pending = run.pending, case_feed](const Result<journal::CommitInfo>& commit) {
        if (case_feed != nullptr && commit.ok()) case_feed->Push(commit->seq);
        pending->Committed(commit);
      });
  if (enqueued.ok()) return Status::Ok();
  sender = std::move(sender_before);
  if (receiver_before) receiver = std::move(*receiver_before);
  return enqueued.status();
}

void Engine::AnswerReplay(DecisionRun& run) {
  // The stored decision, exactly as first answered (same decision_id), once it is durable.
  const uint64_t stored_seq = run.replay->record.seq;
  run.pending->decision = std::move(run.replay->record.decision);
  journal_->WhenDurable(stored_seq, [pending = std::move(run.pending)](const Status& status) {
    pending->AnswerStored(status);
  });
}

void Engine::Answer(DecisionRun& run) {
  const Decision& decision = run.pending->decision;
  run.decided_score = decision.score;
  run.decided_outcome = decision.outcome;
  const StageTimings& t = decision.timings;
  const int64_t service_us = MicrosBetween(run.start_ns, clock_.MonotonicNanos());
  if (run.use_model || run.model == nullptr) {
    scheduler_->estimator().RecordFull(service_us);
  } else {
    scheduler_->estimator().RecordFallback(service_us);
  }
  metrics_.queue->Observe(static_cast<double>(t.queue_us) * 1e-6);
  metrics_.features->Observe(static_cast<double>(t.features_us) * 1e-6);
  metrics_.model->Observe(static_cast<double>(t.model_us) * 1e-6);
  metrics_.policy->Observe(static_cast<double>(t.policy_us) * 1e-6);
  // Acknowledged only once durable (I1): the journal's commit completes the answer if it comes
  // after this hand-off. `decision` is not touched from here on.
  const int64_t journal_start_ns = clock_.MonotonicNanos();
  run.pending->HandOff(run.start_ns, journal_start_ns, tenant_metrics_->For(run.caller.tenant));
}

void Engine::ObserveAfterAnswer(const DecisionRun& run) {
  // Drift bookkeeping, like the candidate's comparison, runs after the answer is handed off:
  // it is no part of the decision's latency or of any stage's timing.
  if (run.drift != nullptr) {
    run.drift->Observe(run.features, run.score.value_or(std::numeric_limits<double>::quiet_NaN()));
  }
  // The candidate's comparison never delays this decision; it is skipped on the fallback path,
  // where the deadline is already tight.
  if (run.use_model && run.assigned.observer != nullptr) {
    CompareModels(run.txn, run.view, *run.policy, *run.models.set, run.assigned, run.decided_score,
                  run.decided_outcome, MicrosBetween(run.features_done_ns, run.model_done_ns));
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

}  // namespace verdict
