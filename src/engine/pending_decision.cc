#include "engine/pending_decision.h"

namespace verdict {

void PendingDecision::Answer() {
  if (!commit_->ok()) return done_(commit_->status());
  const int64_t now = clock_.MonotonicNanos();
  StageTimings& timings = decision.timings;
  timings.journal_us = (now - journal_start_ns_) / 1000;
  timings.total_us = timings.queue_us + (now - start_ns_) / 1000;
  journal_seconds_->Observe(static_cast<double>(timings.journal_us) * 1e-6);
  total_seconds_->Observe(static_cast<double>(timings.total_us) * 1e-6);
  series_.decisions[static_cast<int>(decision.outcome)][static_cast<int>(decision.path)]
      ->Increment();
  series_.latency->Observe(static_cast<double>(timings.total_us) * 1e-6);
  done_(std::move(decision));
}

}  // namespace verdict
