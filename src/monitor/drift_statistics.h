// Drift statistics between a reference distribution and current data: PSI, KL,
// Jensen-Shannon distance (on the reference's bins), the two-sample KS statistic with its
// asymptotic p-value, normalized Wasserstein-1, and the combined drift score.
// Pure functions; thread-safe. docs/drift.md defines each one and how it matches SciPy.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "monitor/reference_distribution.h"

namespace verdict::monitor {

// Bin proportions below this are raised to it (then renormalized) before PSI and KL, so an
// empty bin contributes a large but finite term.
inline constexpr double kDriftEpsilon = 1e-4;

// PSI = sum (a_i - e_i) ln(a_i / e_i) over smoothed proportions; e = expected (reference),
// a = actual (current). 0 when either side has no values.
double PopulationStabilityIndex(std::span<const uint64_t> expected,
                                std::span<const uint64_t> actual, double epsilon = kDriftEpsilon);
// KL(actual || expected) in nats over smoothed proportions, as scipy.stats.entropy(a, e).
double KlDivergence(std::span<const uint64_t> expected, std::span<const uint64_t> actual,
                    double epsilon = kDriftEpsilon);
// Jensen-Shannon distance in base 2 (in [0, 1]), as scipy.spatial.distance.jensenshannon(p, q,
// base=2) on the raw proportions (no smoothing needed).
double JensenShannonDistance(std::span<const uint64_t> expected, std::span<const uint64_t> actual);

// Kolmogorov's limiting survival function Q(x) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 x^2), as
// scipy.stats.kstwobign.sf(x).
double KolmogorovSurvival(double x);
// Two-sided p-value of a two-sample KS statistic d for sample sizes n and m: Q at
// (sqrt(en) + 0.12 + 0.11 / sqrt(en)) d with en = n m / (n + m) (Stephens' finite-sample
// correction of the asymptotic distribution). Within 0.025 (absolute) of SciPy's
// ks_2samp(method="asymp"), which uses the exact one-sample distribution at round(en), for
// en >= 10. 1 when either sample is empty.
double KsPValue(double d, uint64_t n, uint64_t m);

struct KsResult {
  double statistic = 0;
  double p_value = 1;
};
// Two-sample KS on sorted, finite samples (as scipy.stats.ks_2samp: sup |F_a - F_b|).
KsResult KsTwoSample(std::span<const double> a_sorted, std::span<const double> b_sorted);
// KS between two binned distributions on the same bins: the largest difference of the
// cumulative proportions at the bin boundaries (a lower bound of the sample statistic), with
// the p-value for the sizes n and m.
KsResult KsBinned(std::span<const uint64_t> expected, std::span<const uint64_t> actual);

// Wasserstein-1 between sorted samples, as scipy.stats.wasserstein_distance (integral of
// |F_a - F_b|).
double Wasserstein1(std::span<const double> a_sorted, std::span<const double> b_sorted);
// Wasserstein-1 between binned distributions with each bin's mass at its midpoint.
double Wasserstein1Binned(std::span<const double> edges, std::span<const uint64_t> expected,
                          std::span<const uint64_t> actual);
// The scale W1 is divided by: the reference sample's interquartile range (linear
// interpolation, as numpy.percentile), else its range, else 1 (a constant variable).
double WassersteinScale(const VariableReference& reference);

// Weights of the combined drift score 0.4 KL + 0.35 JS + 0.25 PSI.
struct DriftWeights {
  double kl = 0.4;
  double js = 0.35;
  double psi = 0.25;
};

// One variable's statistics for one window.
struct DriftStatistics {
  uint64_t count = 0;    // current non-missing values
  uint64_t missing = 0;  // current missing values
  double psi = 0;
  double kl = 0;
  double js = 0;
  double ks = 0;
  double ks_p_value = 1;
  double wasserstein = 0;  // normalized by WassersteinScale
  // Whether the sample-based ones (KS, W1) came from raw values (true) or from bins.
  bool exact = false;
};

// Live statistics from current bin counts on the reference's bins.
DriftStatistics CompareBinned(const VariableReference& reference,
                              std::span<const uint64_t> current_counts, uint64_t current_missing);
// Offline statistics from raw current values (NaN = missing): PSI/KL/JS on the reference's
// bins, KS and W1 against the reference sample.
DriftStatistics CompareValues(const VariableReference& reference, std::span<const double> values);

double CombinedDriftScore(const DriftStatistics& statistics, const DriftWeights& weights);

}  // namespace verdict::monitor
