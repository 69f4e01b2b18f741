#include "monitor/drift_statistics.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace verdict::monitor {
namespace {

uint64_t Sum(std::span<const uint64_t> counts) {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  return total;
}

// Proportions with each raised to at least epsilon, renormalized to sum to 1.
std::vector<double> Smoothed(std::span<const uint64_t> counts, double epsilon) {
  const double total = static_cast<double>(Sum(counts));
  std::vector<double> p(counts.size());
  double sum = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    p[i] = std::max(static_cast<double>(counts[i]) / total, epsilon);
    sum += p[i];
  }
  for (double& x : p) x /= sum;
  return p;
}

bool Comparable(std::span<const uint64_t> expected, std::span<const uint64_t> actual) {
  return expected.size() == actual.size() && !expected.empty() && Sum(expected) > 0 &&
         Sum(actual) > 0;
}

// Quantile of a sorted sample with linear interpolation (numpy's default).
double Percentile(std::span<const double> sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const size_t lower = static_cast<size_t>(std::floor(position));
  const size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

}  // namespace

double PopulationStabilityIndex(std::span<const uint64_t> expected,
                                std::span<const uint64_t> actual, double epsilon) {
  if (!Comparable(expected, actual)) return 0;
  const std::vector<double> e = Smoothed(expected, epsilon);
  const std::vector<double> a = Smoothed(actual, epsilon);
  double psi = 0;
  for (size_t i = 0; i < e.size(); ++i) psi += (a[i] - e[i]) * std::log(a[i] / e[i]);
  return psi;
}

double KlDivergence(std::span<const uint64_t> expected, std::span<const uint64_t> actual,
                    double epsilon) {
  if (!Comparable(expected, actual)) return 0;
  const std::vector<double> e = Smoothed(expected, epsilon);
  const std::vector<double> a = Smoothed(actual, epsilon);
  double kl = 0;
  for (size_t i = 0; i < e.size(); ++i) kl += a[i] * std::log(a[i] / e[i]);
  return std::max(kl, 0.0);
}

double JensenShannonDistance(std::span<const uint64_t> expected, std::span<const uint64_t> actual) {
  if (!Comparable(expected, actual)) return 0;
  const double ne = static_cast<double>(Sum(expected));
  const double na = static_cast<double>(Sum(actual));
  double js = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const double p = static_cast<double>(expected[i]) / ne;
    const double q = static_cast<double>(actual[i]) / na;
    const double m = (p + q) / 2;
    if (p > 0) js += p * std::log(p / m);
    if (q > 0) js += q * std::log(q / m);
  }
  js /= std::numbers::ln2;
  return std::sqrt(std::clamp(js / 2, 0.0, 1.0));
}

double KolmogorovSurvival(double x) {
  if (!(x > 0)) return 1;
  if (x < 1.18) {
    // The theta-function form converges fast for small x: 1 - sqrt(2 pi)/x sum exp(-(2k-1)^2
    // pi^2 / (8 x^2)).
    const double y = std::exp(-std::numbers::pi * std::numbers::pi / (8 * x * x));
    double sum = 0;
    for (int k = 1; k <= 6; ++k) sum += std::pow(y, (2 * k - 1) * (2 * k - 1));
    return std::clamp(1 - std::sqrt(2 * std::numbers::pi) / x * sum, 0.0, 1.0);
  }
  double sum = 0;
  double sign = 1;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * x * x);
    sum += sign * term;
    if (term < 1e-18) break;
    sign = -sign;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

double KsPValue(double d, uint64_t n, uint64_t m) {
  if (n == 0 || m == 0) return 1;
  const double en = static_cast<double>(n) * static_cast<double>(m) /
                    (static_cast<double>(n) + static_cast<double>(m));
  const double root = std::sqrt(en);
  return KolmogorovSurvival((root + 0.12 + 0.11 / root) * d);
}

KsResult KsTwoSample(std::span<const double> a, std::span<const double> b) {
  KsResult result;
  if (a.empty() || b.empty()) return result;
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  size_t i = 0;
  size_t j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  result.statistic = d;
  result.p_value = KsPValue(d, a.size(), b.size());
  return result;
}

KsResult KsBinned(std::span<const uint64_t> expected, std::span<const uint64_t> actual) {
  KsResult result;
  if (!Comparable(expected, actual)) return result;
  const uint64_t ne = Sum(expected);
  const uint64_t na = Sum(actual);
  uint64_t ce = 0;
  uint64_t ca = 0;
  double d = 0;
  for (size_t i = 0; i + 1 < expected.size(); ++i) {
    ce += expected[i];
    ca += actual[i];
    d = std::max(d, std::abs(static_cast<double>(ce) / static_cast<double>(ne) -
                             static_cast<double>(ca) / static_cast<double>(na)));
  }
  result.statistic = d;
  result.p_value = KsPValue(d, ne, na);
  return result;
}

double Wasserstein1(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return 0;
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  size_t i = 0;
  size_t j = 0;
  double previous = std::min(a[0], b[0]);
  double total = 0;
  while (i < a.size() || j < b.size()) {
    const double x = j == b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
    total += std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb) * (x - previous);
    previous = x;
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
  }
  return total;
}

double Wasserstein1Binned(std::span<const double> edges, std::span<const uint64_t> expected,
                          std::span<const uint64_t> actual) {
  if (!Comparable(expected, actual) || edges.size() != expected.size() + 1) return 0;
  const double ne = static_cast<double>(Sum(expected));
  const double na = static_cast<double>(Sum(actual));
  double ce = 0;
  double ca = 0;
  double total = 0;
  for (size_t i = 0; i + 1 < expected.size(); ++i) {
    ce += static_cast<double>(expected[i]);
    ca += static_cast<double>(actual[i]);
    const double mid = (edges[i] + edges[i + 1]) / 2;
    const double next_mid = (edges[i + 1] + edges[i + 2]) / 2;
    total += std::abs(ce / ne - ca / na) * (next_mid - mid);
  }
  return total;
}

double WassersteinScale(const VariableReference& reference) {
  const std::span<const double> s = reference.sample;
  if (s.empty()) return 1;
  const double iqr = Percentile(s, 0.75) - Percentile(s, 0.25);
  if (iqr > 0) return iqr;
  const double range = s.back() - s.front();
  return range > 0 ? range : 1;
}

DriftStatistics CompareBinned(const VariableReference& reference,
                              std::span<const uint64_t> current_counts, uint64_t current_missing) {
  DriftStatistics s;
  s.count = Sum(current_counts);
  s.missing = current_missing;
  if (current_counts.size() != reference.counts.size()) return s;
  s.psi = PopulationStabilityIndex(reference.counts, current_counts);
  s.kl = KlDivergence(reference.counts, current_counts);
  s.js = JensenShannonDistance(reference.counts, current_counts);
  const KsResult ks = KsBinned(reference.counts, current_counts);
  s.ks = ks.statistic;
  s.ks_p_value = ks.p_value;
  s.wasserstein = Wasserstein1Binned(reference.edges, reference.counts, current_counts) /
                  WassersteinScale(reference);
  return s;
}

DriftStatistics CompareValues(const VariableReference& reference, std::span<const double> values) {
  std::vector<double> sorted;
  sorted.reserve(values.size());
  std::vector<uint64_t> counts(reference.counts.size(), 0);
  uint64_t missing = 0;
  for (double v : values) {
    if (std::isnan(v)) {
      ++missing;
      continue;
    }
    sorted.push_back(v);
    if (!counts.empty()) ++counts[reference.BinOf(v)];
  }
  std::sort(sorted.begin(), sorted.end());
  DriftStatistics s = CompareBinned(reference, counts, missing);
  if (!sorted.empty() && !reference.sample.empty()) {
    const KsResult ks = KsTwoSample(reference.sample, sorted);
    s.ks = ks.statistic;
    s.ks_p_value = ks.p_value;
    s.wasserstein = Wasserstein1(reference.sample, sorted) / WassersteinScale(reference);
    s.exact = true;
  }
  return s;
}

double CombinedDriftScore(const DriftStatistics& statistics, const DriftWeights& weights) {
  return weights.kl * statistics.kl + weights.js * statistics.js + weights.psi * statistics.psi;
}

}  // namespace verdict::monitor
