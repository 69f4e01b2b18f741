// DivergenceStats: how a candidate model (shadow or canary) differs from the primary on the
// same transactions: outcome changes, |score delta| (count, mean, p99, max) and the
// candidate's model-stage latency (p99). Written by every worker, read by the rollout
// controller and GET /v1/models. Thread-safe and lock-free (relaxed atomics).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "core/decision.h"

namespace verdict::lifecycle {

// A histogram of non-negative values in geometric buckets (ratio 1.02 from `min` upward), so a
// quantile is known to within 2% of its value. Values below `min` count as 0. Thread-safe.
class QuantileHistogram {
 public:
  static constexpr size_t kBuckets = 1200;
  explicit QuantileHistogram(double min) : min_(min) {}

  void Observe(double value);
  uint64_t count() const;
  // The upper bound of the bucket holding the q-quantile (0 when empty).
  double Quantile(double q) const;

 private:
  size_t BucketOf(double value) const;
  double UpperBound(size_t bucket) const;

  const double min_;
  std::array<std::atomic<uint64_t>, kBuckets> buckets_{};
};

struct DivergenceSnapshot {
  uint64_t comparisons = 0;         // transactions scored by both models
  uint64_t outcome_changes = 0;     // of those, how many got another outcome from the candidate
  uint64_t candidate_stricter = 0;  // changes where the candidate's outcome is more severe
  double mean_abs_delta = 0;        // mean |candidate score - primary score|
  double p99_abs_delta = 0;
  double max_abs_delta = 0;
  uint64_t candidate_timings = 0;  // model-stage timings of the candidate
  double candidate_p99_us = 0;

  double outcome_change_rate() const {
    return comparisons == 0
               ? 0.0
               : static_cast<double>(outcome_changes) / static_cast<double>(comparisons);
  }
};

class DivergenceStats {
 public:
  DivergenceStats() = default;
  DivergenceStats(const DivergenceStats&) = delete;
  DivergenceStats& operator=(const DivergenceStats&) = delete;

  // One transaction scored by both models, with the outcome each score led to.
  void RecordComparison(double primary_score, Outcome primary_outcome, double candidate_score,
                        Outcome candidate_outcome);
  // The candidate's model-stage time for one transaction (whether it decided or shadowed).
  void RecordCandidateLatency(int64_t micros);

  DivergenceSnapshot Snapshot() const;

 private:
  std::atomic<uint64_t> comparisons_{0};
  std::atomic<uint64_t> outcome_changes_{0};
  std::atomic<uint64_t> candidate_stricter_{0};
  std::atomic<double> sum_abs_delta_{0};
  std::atomic<double> max_abs_delta_{0};
  QuantileHistogram abs_delta_{1e-6};
  QuantileHistogram latency_us_{1.0};
};

}  // namespace verdict::lifecycle
