// The drift monitor's per-value bin search: how many of a variable's interior bin boundaries,
// padded with +inf to kPaddedEdges slots, are <= a value. Two exact implementations with the
// same results: a branch-free binary search (any x86-64) and an AVX2 compare-and-count
// (chosen at run time). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <limits>

#include "monitor/reference_distribution.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define VERDICT_DRIFT_AVX2 1
#endif

namespace verdict::monitor {

// Slots of padded boundaries per variable: 2^5 - 1, so the binary search takes 5 steps.
inline constexpr size_t kPaddedEdges = 31;
// The AVX2 count reads only the first kAvx2Edges slots: a reference has at most
// kMaxReferenceBins - 1 interior boundaries, the rest are +inf and never count.
inline constexpr size_t kAvx2Edges = 20;
static_assert(kMaxReferenceBins - 1 <= kAvx2Edges && kAvx2Edges <= kPaddedEdges);

// `x` must not be NaN or +inf (callers clamp +inf to the largest double, and send NaN to
// the missing slot). The comparisons become integers (setcc), since random data would
// mispredict branches; each step's load depends on the previous compare.
inline size_t PaddedBinPortable(const double* edges, double x) {
  size_t idx = static_cast<size_t>(edges[15] <= x) << 4;
  idx += static_cast<size_t>(edges[idx + 7] <= x) << 3;
  idx += static_cast<size_t>(edges[idx + 3] <= x) << 2;
  idx += static_cast<size_t>(edges[idx + 1] <= x) << 1;
  idx += static_cast<size_t>(edges[idx] <= x);
  return idx;
}

#ifdef VERDICT_DRIFT_AVX2
// All-ones lanes where edges[at + i] <= x.
__attribute__((target("avx2"), always_inline)) inline __m256i LeMaskAvx2(const double* edges,
                                                                         __m256d x) {
  return _mm256_castpd_si256(_mm256_cmp_pd(_mm256_loadu_pd(edges), x, _CMP_LE_OQ));
}

// All 20 comparisons at once (five 4-wide compares whose all-ones lanes are summed as
// integers: each adds -1): no load waits for a compare, so successive variables overlap.
__attribute__((target("avx2"), always_inline)) inline size_t PaddedBinAvx2(const double* edges,
                                                                           double x) {
  const __m256d v = _mm256_set1_pd(x);
  const __m256i sum = _mm256_add_epi64(
      _mm256_add_epi64(LeMaskAvx2(edges, v), LeMaskAvx2(edges + 4, v)),
      _mm256_add_epi64(_mm256_add_epi64(LeMaskAvx2(edges + 8, v), LeMaskAvx2(edges + 12, v)),
                       LeMaskAvx2(edges + 16, v)));
  __m128i half = _mm_add_epi64(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
  half = _mm_add_epi64(half, _mm_unpackhi_epi64(half, half));
  return static_cast<size_t>(-_mm_cvtsi128_si64(half));
}
#endif

// Whether this CPU runs PaddedBinAvx2.
inline bool CpuHasAvx2() {
#ifdef VERDICT_DRIFT_AVX2
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

}  // namespace verdict::monitor
