#include "load/latency_histogram.h"

#include <algorithm>
#include <bit>

namespace load {
namespace {

// Values below 2^kSubBits are their own bucket; above, each power of two is split into
// 2^(kSubBits-1) equal sub-buckets.
constexpr int kSubBits = 7;
constexpr int64_t kLinear = int64_t{1} << kSubBits;
constexpr int kHalf = 1 << (kSubBits - 1);
constexpr int kMaxExponent = 40;  // 2^40 µs ≈ 12.7 days
constexpr size_t kBuckets = kLinear + static_cast<size_t>(kMaxExponent - kSubBits + 1) * kHalf;

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

size_t LatencyHistogram::BucketOf(int64_t micros) {
  if (micros < 0) micros = 0;
  if (micros < kLinear) return static_cast<size_t>(micros);
  int exponent = 63 - std::countl_zero(static_cast<uint64_t>(micros));  // floor(log2)
  if (exponent > kMaxExponent) return kBuckets - 1;
  int shift = exponent - (kSubBits - 1);
  int64_t sub = (micros >> shift) - kHalf;  // 0 .. kHalf-1
  return static_cast<size_t>(kLinear + (exponent - kSubBits) * kHalf + sub);
}

int64_t LatencyHistogram::UpperEdge(size_t bucket) {
  if (bucket < static_cast<size_t>(kLinear)) return static_cast<int64_t>(bucket);
  size_t rest = bucket - kLinear;
  int exponent = static_cast<int>(rest / kHalf) + kSubBits;
  int64_t sub = static_cast<int64_t>(rest % kHalf);
  int shift = exponent - (kSubBits - 1);
  return ((kHalf + sub + 1) << shift) - 1;
}

void LatencyHistogram::Record(int64_t micros) {
  ++counts_[BucketOf(micros)];
  ++count_;
  max_ = std::max(max_, micros);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

int64_t LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(q * static_cast<double>(count_) + 0.999999));
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(UpperEdge(i), max_);
  }
  return max_;
}

}  // namespace load
