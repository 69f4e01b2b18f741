#include "monitor/drift_statistics.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <string>
#include <vector>

namespace verdict::monitor {
namespace {

// Golden values from SciPy, made by testdata/make_drift_golden.py (tests run in the source
// directory).
constexpr const char* kGoldenPath = "src/monitor/testdata/drift_golden.json";

std::vector<double> Doubles(simdjson::dom::element e) {
  std::vector<double> out;
  for (simdjson::dom::element x : e.get_array()) out.push_back(x.get_double());
  return out;
}

std::vector<uint64_t> Counts(simdjson::dom::element e) {
  std::vector<uint64_t> out;
  for (simdjson::dom::element x : e.get_array())
    out.push_back(static_cast<uint64_t>(x.get_int64()));
  return out;
}

TEST(DriftStatisticsTest, MatchesSciPyGoldenValues) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.load(kGoldenPath).get(root), simdjson::SUCCESS) << kGoldenPath;
  int cases = 0;
  for (simdjson::dom::element c : root["cases"].get_array()) {
    const std::string name(std::string_view(c["name"].get_string()));
    SCOPED_TRACE(name);
    const std::vector<double> a = Doubles(c["a"]);
    const std::vector<double> b = Doubles(c["b"]);
    const std::vector<double> edges = Doubles(c["edges"]);
    const std::vector<uint64_t> ca = Counts(c["counts_a"]);
    const std::vector<uint64_t> cb = Counts(c["counts_b"]);

    // Our binning rule gives the same counts as the script's.
    VariableReference ref;
    ref.edges = edges;
    ref.counts.assign(edges.size() - 1, 0);
    std::vector<uint64_t> counted(edges.size() - 1, 0);
    for (double x : a) ++ref.counts[ref.BinOf(x)];
    for (double x : b) ++counted[ref.BinOf(x)];
    EXPECT_EQ(ref.counts, ca);
    EXPECT_EQ(counted, cb);

    const KsResult ks = KsTwoSample(a, b);
    EXPECT_NEAR(ks.statistic, double(c["ks_statistic"]), 1e-12);
    // Same formula as kstwobign.sf at the corrected argument: relative 1e-9.
    const double kstwobign = c["ks_p_value_kstwobign"];
    EXPECT_NEAR(ks.p_value, kstwobign, 1e-9 * kstwobign + 1e-300);
    // SciPy's asymp mode (exact one-sample distribution at round(en)): the stated tolerance.
    const double en = double(a.size()) * double(b.size()) / double(a.size() + b.size());
    EXPECT_NEAR(ks.p_value, double(c["ks_p_value_scipy_asymp"]), en >= 10 ? 0.025 : 0.05);

    EXPECT_NEAR(Wasserstein1(a, b), double(c["wasserstein"]), 1e-12);
    EXPECT_NEAR(Wasserstein1(b, a), double(c["wasserstein"]), 1e-12);
    EXPECT_NEAR(JensenShannonDistance(ca, cb), double(c["js_base2"]), 1e-12);
    EXPECT_NEAR(KlDivergence(ca, cb), double(c["kl_b_a"]), 1e-12);
    EXPECT_NEAR(PopulationStabilityIndex(ca, cb), double(c["psi"]), 1e-12);

    ref.sample = a;
    EXPECT_NEAR(WassersteinScale(ref), double(c["iqr_a"]), 1e-12);
    const DriftStatistics s = CompareValues(ref, b);
    EXPECT_TRUE(s.exact);
    EXPECT_EQ(s.count, b.size());
    EXPECT_NEAR(s.ks, ks.statistic, 1e-12);
    EXPECT_NEAR(s.psi, double(c["psi"]), 1e-12);
    EXPECT_NEAR(s.wasserstein, double(c["wasserstein"]) / double(c["iqr_a"]), 1e-9);
    ++cases;
  }
  EXPECT_GE(cases, 7);
}

TEST(DriftStatisticsTest, KolmogorovSurvivalKnownValues) {
  // scipy.stats.kstwobign.sf at 0.5, 1.0, 1.36 and 2.0.
  EXPECT_NEAR(KolmogorovSurvival(0.5), 0.9639452436648751, 1e-12);
  EXPECT_NEAR(KolmogorovSurvival(1.0), 0.26999967167735456, 1e-12);
  EXPECT_NEAR(KolmogorovSurvival(1.36), 0.049485876755377876, 1e-12);
  EXPECT_NEAR(KolmogorovSurvival(2.0), 0.0006709252557796953, 1e-12);
  EXPECT_EQ(KolmogorovSurvival(0), 1);
  EXPECT_EQ(KsPValue(0.5, 0, 10), 1);
}

TEST(DriftStatisticsTest, IdenticalDistributionsShowNoDrift) {
  const std::vector<uint64_t> c = {10, 20, 30, 40};
  const std::vector<uint64_t> scaled = {100, 200, 300, 400};
  EXPECT_NEAR(PopulationStabilityIndex(c, scaled), 0, 1e-15);
  EXPECT_NEAR(KlDivergence(c, scaled), 0, 1e-15);
  EXPECT_NEAR(JensenShannonDistance(c, scaled), 0, 1e-7);
  EXPECT_NEAR(KsBinned(c, scaled).statistic, 0, 1e-15);
  const std::vector<double> edges = {0, 1, 2, 3, 4};
  EXPECT_NEAR(Wasserstein1Binned(edges, c, scaled), 0, 1e-15);
}

TEST(DriftStatisticsTest, EmptyOrMismatchedInputsGiveZero) {
  const std::vector<uint64_t> c = {1, 2};
  const std::vector<uint64_t> zero = {0, 0};
  const std::vector<uint64_t> three = {1, 2, 3};
  EXPECT_EQ(PopulationStabilityIndex(c, zero), 0);
  EXPECT_EQ(KlDivergence(c, three), 0);
  EXPECT_EQ(JensenShannonDistance(zero, c), 0);
  EXPECT_EQ(KsBinned(c, zero).p_value, 1);
  EXPECT_EQ(Wasserstein1({}, std::vector<double>{1.0}), 0);
  EXPECT_EQ(KsTwoSample({}, std::vector<double>{1.0}).p_value, 1);
}

TEST(DriftStatisticsTest, DisjointBinsSaturate) {
  const std::vector<uint64_t> left = {100, 0};
  const std::vector<uint64_t> right = {0, 100};
  EXPECT_NEAR(JensenShannonDistance(left, right), 1, 1e-12);
  EXPECT_NEAR(KsBinned(left, right).statistic, 1, 1e-12);
  // With epsilon 1e-4 the empty bins give a large but finite PSI (about 2 ln 1e4).
  EXPECT_GT(PopulationStabilityIndex(left, right), 15);
  EXPECT_TRUE(std::isfinite(PopulationStabilityIndex(left, right)));
  const std::vector<double> edges = {0, 1, 2};
  EXPECT_NEAR(Wasserstein1Binned(edges, left, right), 1, 1e-12);  // midpoints 0.5 -> 1.5
}

TEST(DriftStatisticsTest, CombinedScoreUsesTheWeights) {
  DriftStatistics s;
  s.kl = 0.1;
  s.js = 0.2;
  s.psi = 0.4;
  EXPECT_NEAR(CombinedDriftScore(s, DriftWeights{}), 0.4 * 0.1 + 0.35 * 0.2 + 0.25 * 0.4, 1e-15);
  EXPECT_NEAR(CombinedDriftScore(s, DriftWeights{1, 0, 0}), 0.1, 1e-15);
}

TEST(DriftStatisticsTest, BinnedComparisonOfAShiftedVariable) {
  std::vector<double> values;
  for (int i = 0; i < 10000; ++i) values.push_back(i / 10000.0);
  const VariableReference ref = BuildVariableReference("x", values);
  std::vector<uint64_t> same(ref.bins(), 0);
  std::vector<uint64_t> shifted(ref.bins(), 0);
  for (int i = 0; i < 1000; ++i) {
    ++same[ref.BinOf(i / 1000.0)];
    ++shifted[ref.BinOf(0.5 + i / 2000.0)];
  }
  const DriftStatistics quiet = CompareBinned(ref, same, 0);
  const DriftStatistics loud = CompareBinned(ref, shifted, 3);
  EXPECT_FALSE(quiet.exact);
  EXPECT_LT(quiet.psi, 0.01);
  EXPECT_GT(quiet.ks_p_value, 0.5);
  EXPECT_GT(loud.psi, 1);
  EXPECT_NEAR(loud.ks, 0.5, 0.01);
  EXPECT_LT(loud.ks_p_value, 1e-10);
  EXPECT_EQ(loud.missing, 3u);
  EXPECT_NEAR(loud.wasserstein, 0.25 / 0.5, 0.05);  // shift of the mean 0.25, IQR 0.5
}

}  // namespace
}  // namespace verdict::monitor
