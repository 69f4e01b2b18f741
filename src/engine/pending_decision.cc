#include "engine/pending_decision.h"

namespace verdict {
namespace {

// What a decision's spans say about it, copied before the answer takes the decision.
tracing::DecisionSummary Summarize(const Decision& decision) {
  tracing::DecisionSummary summary;
  summary.decision_id = decision.decision_id;
  summary.transaction_id = decision.transaction_id;
  summary.outcome = decision.outcome;
  summary.path = decision.path;
  summary.timings = decision.timings;
  return summary;
}

tracing::DecisionSummary Failed(const Decision& decision, const Status& status) {
  tracing::DecisionSummary summary;
  summary.transaction_id = decision.transaction_id;
  summary.error = status.ToString();
  return summary;
}

}  // namespace

void PendingDecision::TraceWith(std::shared_ptr<tracing::Tracer> tracer,
                                tracing::DecisionTrace trace, int64_t received_ns,
                                const std::string& tenant) {
  tracer_ = std::move(tracer);
  trace_ = std::move(trace);
  received_ns_ = received_ns;
  tenant_ = tenant;
}

void PendingDecision::Refuse(const Status& status) {
  if (tracer_ == nullptr) return done_(status);
  tracing::DecisionSummary summary = Failed(decision, status);
  done_(status);
  RecordTrace(std::move(summary));
}

void PendingDecision::AnswerStored(const Status& durable) {
  if (tracer_ == nullptr) {
    if (!durable.ok()) return done_(durable);
    return done_(std::move(decision));
  }
  tracing::DecisionSummary summary = durable.ok() ? Summarize(decision) : Failed(decision, durable);
  summary.replay = durable.ok();
  if (durable.ok()) {
    done_(std::move(decision));
  } else {
    done_(durable);
  }
  RecordTrace(std::move(summary));
}

void PendingDecision::Answer() {
  if (!commit_->ok()) {
    if (tracer_ == nullptr) return done_(commit_->status());
    tracing::DecisionSummary summary = Failed(decision, commit_->status());
    done_(commit_->status());
    return RecordTrace(std::move(summary));
  }
  const int64_t now = clock_.MonotonicNanos();
  StageTimings& timings = decision.timings;
  timings.journal_us = (now - journal_start_ns_) / 1000;
  timings.total_us = timings.queue_us + (now - start_ns_) / 1000;
  journal_seconds_->Observe(static_cast<double>(timings.journal_us) * 1e-6);
  total_seconds_->Observe(static_cast<double>(timings.total_us) * 1e-6);
  series_.decisions[static_cast<int>(decision.outcome)][static_cast<int>(decision.path)]
      ->Increment();
  series_.latency->Observe(static_cast<double>(timings.total_us) * 1e-6);
  if (tracer_ == nullptr) return done_(std::move(decision));
  // The spans are built after the answer is on its way: they add nothing to its latency.
  tracing::DecisionSummary summary = Summarize(decision);
  done_(std::move(decision));
  RecordTrace(std::move(summary));
}

void PendingDecision::RecordTrace(tracing::DecisionSummary summary) {
  summary.tenant = tenant_;
  summary.elapsed_ns = tracer_->clock().MonotonicNanos() - received_ns_;
  tracer_->RecordDecision(trace_, summary);
}

}  // namespace verdict
