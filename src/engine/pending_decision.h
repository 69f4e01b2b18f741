// PendingDecision: one decision from the moment it is made until it is answered: the Decision
// itself, the caller's callback, and the Completion of the two parts that must both be done
// before the answer goes out: the journal's commit of its record (durable, I1) and the deciding
// worker's own bookkeeping after the enqueue. Whichever of the two comes second answers, on its
// own thread. Shared by the worker and the journal's commit callback (shared_ptr); the worker
// writes `decision` until HandOff and never touches it after; thread-safe from then on.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "core/decision.h"
#include "engine/completion.h"
#include "engine/tenant_metrics.h"
#include "journal/journal.h"
#include "tracing/tracer.h"

namespace verdict {

class PendingDecision {
 public:
  using Callback = std::function<void(Result<Decision>)>;

  // `clock` and the histograms must outlive the answer: the journal's final flush may answer
  // after the engine is gone, so nothing here refers to the engine (the histograms belong to
  // the metrics registry).
  PendingDecision(Callback done, const Clock& clock, Histogram* journal_seconds,
                  Histogram* total_seconds)
      : done_(std::move(done)),
        clock_(clock),
        journal_seconds_(journal_seconds),
        total_seconds_(total_seconds) {}
  PendingDecision(const PendingDecision&) = delete;
  PendingDecision& operator=(const PendingDecision&) = delete;

  // The answer being made; the worker's alone until HandOff.
  Decision decision;

  // The journal's part: the record's commit (or the journal's failure). Commit callback.
  void Committed(const Result<journal::CommitInfo>& commit) {
    commit_.emplace(commit);
    if (completion_.Arrive()) Answer();
  }
  // The worker's part: its bookkeeping is over. The commit's duration counts from
  // `journal_start_ns`, the decision's total from `start_ns` (both monotonic); the answer is
  // counted in the tenant's `series` (a copy: the engine's table may be gone by then).
  void HandOff(int64_t start_ns, int64_t journal_start_ns, const TenantMetrics::Series& series) {
    start_ns_ = start_ns;
    journal_start_ns_ = journal_start_ns;
    series_ = series;
    if (completion_.Arrive()) Answer();
  }
  // Records the decision's spans with `tracer` once it is answered (docs/tracing.md): the
  // decision arrived at `received_ns` (monotonic) for `tenant`. Before anything else is called.
  void TraceWith(std::shared_ptr<tracing::Tracer> tracer, tracing::DecisionTrace trace,
                 int64_t received_ns, const std::string& tenant);
  // Answers at once with an error: the decision was refused before anything was journaled.
  void Refuse(const Status& status);
  // Answers with `decision` as stored (a replay) once the journal says it is durable, or with
  // the journal's failure.
  void AnswerStored(const Status& durable);

 private:
  // Both parts are done: times the commit, counts the decision and answers.
  void Answer();
  // After the answer: hands the decision's spans to the tracer, if it is traced.
  void RecordTrace(tracing::DecisionSummary summary);

  Callback done_;
  const Clock& clock_;
  Histogram* const journal_seconds_;
  Histogram* const total_seconds_;
  // Each written by its own part before it arrives; read only by the answer (Completion).
  std::optional<Result<journal::CommitInfo>> commit_;
  int64_t start_ns_ = 0;
  int64_t journal_start_ns_ = 0;
  TenantMetrics::Series series_{};
  Completion completion_{2};
  // Set by TraceWith only for a decision whose spans are recorded.
  std::shared_ptr<tracing::Tracer> tracer_;
  tracing::DecisionTrace trace_;
  int64_t received_ns_ = 0;
  std::string tenant_;
};

}  // namespace verdict
