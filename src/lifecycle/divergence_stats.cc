#include "lifecycle/divergence_stats.h"

#include <cmath>

namespace verdict::lifecycle {
namespace {

constexpr double kRatio = 1.02;

void AtomicMax(std::atomic<double>& target, double value) {
  double seen = target.load(std::memory_order_relaxed);
  while (value > seen && !target.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

size_t QuantileHistogram::BucketOf(double value) const {
  if (!(value >= min_)) return 0;  // also NaN
  // Bucket k >= 1 holds (min * ratio^(k-2), min * ratio^(k-1)]; bucket 1 is exactly min.
  const double b = std::ceil(std::log(value / min_) / std::log(kRatio));
  if (!(b < static_cast<double>(kBuckets - 1))) return kBuckets - 1;
  return static_cast<size_t>(std::max(1.0, b + 1));
}

double QuantileHistogram::UpperBound(size_t bucket) const {
  if (bucket == 0) return 0;
  return min_ * std::pow(kRatio, static_cast<double>(bucket - 1));
}

void QuantileHistogram::Observe(double value) {
  buckets_[BucketOf(value)].fetch_add(1, std::memory_order_relaxed);
}

uint64_t QuantileHistogram::count() const {
  uint64_t n = 0;
  for (const auto& b : buckets_) n += b.load(std::memory_order_relaxed);
  return n;
}

double QuantileHistogram::Quantile(double q) const {
  std::array<uint64_t, kBuckets> counts;
  uint64_t n = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    counts[i] = buckets_[i].load(std::memory_order_relaxed);
    n += counts[i];
  }
  if (n == 0) return 0;
  // The smallest bucket whose cumulative count reaches ceil(q * n).
  const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(n)));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts[i];
    if (seen >= std::max<uint64_t>(rank, 1)) return UpperBound(i);
  }
  return UpperBound(kBuckets - 1);
}

void DivergenceStats::RecordComparison(double primary_score, Outcome primary_outcome,
                                       double candidate_score, Outcome candidate_outcome) {
  const double delta = std::abs(candidate_score - primary_score);
  comparisons_.fetch_add(1, std::memory_order_relaxed);
  if (candidate_outcome != primary_outcome) {
    outcome_changes_.fetch_add(1, std::memory_order_relaxed);
    if (static_cast<int>(candidate_outcome) > static_cast<int>(primary_outcome)) {
      candidate_stricter_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  if (std::isfinite(delta)) {
    sum_abs_delta_.fetch_add(delta, std::memory_order_relaxed);
    AtomicMax(max_abs_delta_, delta);
  }
  abs_delta_.Observe(delta);
}

void DivergenceStats::RecordCandidateLatency(int64_t micros) {
  latency_us_.Observe(static_cast<double>(std::max<int64_t>(micros, 0)));
}

DivergenceSnapshot DivergenceStats::Snapshot() const {
  DivergenceSnapshot s;
  s.comparisons = comparisons_.load(std::memory_order_relaxed);
  s.outcome_changes = outcome_changes_.load(std::memory_order_relaxed);
  s.candidate_stricter = candidate_stricter_.load(std::memory_order_relaxed);
  s.mean_abs_delta = s.comparisons == 0 ? 0
                                        : sum_abs_delta_.load(std::memory_order_relaxed) /
                                              static_cast<double>(s.comparisons);
  s.p99_abs_delta = abs_delta_.Quantile(0.99);
  s.max_abs_delta = max_abs_delta_.load(std::memory_order_relaxed);
  s.candidate_timings = latency_us_.count();
  s.candidate_p99_us = latency_us_.Quantile(0.99);
  return s;
}

}  // namespace verdict::lifecycle
