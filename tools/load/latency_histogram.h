// LatencyHistogram: log-linear buckets over microseconds (about 1.6% relative precision from
// 1 µs to over an hour), for percentiles without keeping every sample. Not thread-safe: one
// per thread, merged at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace load {

class LatencyHistogram {
 public:
  LatencyHistogram();
  void Record(int64_t micros);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  int64_t max() const { return max_; }
  // The smallest recorded-bucket upper edge at or above the q-quantile (0 < q <= 1); 0 when
  // empty. Reported values never understate latency.
  int64_t Percentile(double q) const;

  static size_t BucketOf(int64_t micros);
  static int64_t UpperEdge(size_t bucket);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  int64_t max_ = 0;
};

}  // namespace load
