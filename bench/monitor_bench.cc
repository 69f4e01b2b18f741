// Drift bookkeeping per decision: DriftMonitor::Observe for 40 tracked features and the score
// (target <= 200 ns, figures in docs/PERFORMANCE.md (Drift)), with the bin search it picks on
// this CPU (search:1) and with the portable one it had before (search:0) side by side; and the
// monitor thread's once-a-second Tick.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "monitor/drift_monitor.h"
#include "monitor/reference_distribution.h"

namespace verdict::monitor {
namespace {

constexpr size_t kEngineFeatures = 73;
// A handful of vectors: in the engine the vector was just computed and is in L1.
constexpr size_t kVectors = 16;

struct Fixture {
  explicit Fixture(size_t tracked) {
    for (size_t i = 0; i < kEngineFeatures; ++i) names.push_back("f" + std::to_string(i));
    std::vector<std::string> tracked_names(names.begin(), names.begin() + tracked);
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> value(0, 1);
    std::uniform_real_distribution<double> unit(0, 1);
    ReferenceBuilder builder(tracked_names);
    std::vector<double> row(tracked);
    for (int r = 0; r < 20000; ++r) {
      for (double& x : row) x = value(rng);
      (void)builder.AddRow(row, unit(rng));
    }
    reference = std::move(builder.Build()).value();
    for (const std::string& n : names) views.push_back(n);
    vectors.resize(kVectors * kEngineFeatures);
    for (double& x : vectors) x = value(rng) * 1.1;
    scores.resize(kVectors);
    for (double& s : scores) s = unit(rng);
  }
  std::vector<std::string> names;
  std::vector<std::string_view> views;
  ReferenceDistribution reference;
  std::vector<double> vectors;
  std::vector<double> scores;
};

void BM_Observe(benchmark::State& state) {
  static Fixture* fixture = nullptr;
  static std::unique_ptr<DriftMonitor> monitor;
  static MetricsRegistry metrics;
  if (state.thread_index() == 0) {
    fixture = new Fixture(static_cast<size_t>(state.range(0)));
    monitor = std::move(DriftMonitor::Create(DriftOptions{}, fixture->reference, fixture->views,
                                             "bench", "1", metrics, SystemClock::Instance())
                            .value());
    if (state.range(1) == 0) monitor->UsePortableSearchForTesting();
  }
  size_t i = static_cast<size_t>(state.thread_index()) * 997;
  for (auto _ : state) {
    const size_t k = i++ % kVectors;
    monitor->Observe(
        std::span<const double>(fixture->vectors.data() + k * kEngineFeatures, kEngineFeatures),
        fixture->scores[k]);
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    monitor.reset();
    delete fixture;
  }
}
BENCHMARK(BM_Observe)
    ->ArgNames({"features", "search"})
    ->ArgsProduct({{40, 73}, {0, 1}})
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();

void BM_Tick(benchmark::State& state) {
  Fixture fixture(40);
  MetricsRegistry metrics;
  auto monitor = std::move(DriftMonitor::Create(DriftOptions{}, fixture.reference, fixture.views,
                                                "bench", "1", metrics, SystemClock::Instance())
                               .value());
  int64_t now = 1'000'000 * kMicrosPerSecond;
  // A full 300 s history of buckets.
  for (int s = 0; s < 300; ++s) {
    for (size_t j = 0; j < 100; ++j) {
      const size_t k = j % kVectors;
      monitor->Observe(
          std::span<const double>(fixture.vectors.data() + k * kEngineFeatures, kEngineFeatures),
          fixture.scores[k]);
    }
    monitor->Tick(now);
    now += kMicrosPerSecond;
  }
  for (auto _ : state) {
    monitor->Tick(now);
    now += kMicrosPerSecond;
  }
}
BENCHMARK(BM_Tick)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace verdict::monitor

BENCHMARK_MAIN();
