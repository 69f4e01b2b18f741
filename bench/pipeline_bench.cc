// Decode + decide per transaction, on one thread: the hot path without HTTP.
// BM_DecodeTransaction isolates the JSON codec; BM_DecodeAndDecide adds features, rules, the
// state encoding and the journal record (asynchronous journal) over a population of accounts.
// BM_DecideWithModel/D serves the model directory named by VERDICT_BENCH_MODEL (skipped when
// unset) without (D = 0) and with (D = 1) its anomaly model and risk calibration, and reports
// the feature and model stages' p50 and p99 (the decisions' own stage timings, in µs).
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "api/transaction_json.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/rfc3339.h"
#include "engine/engine.h"

namespace verdict {
namespace {

std::vector<std::string> MakeBodies(int count, int accounts) {
  std::vector<std::string> bodies;
  bodies.reserve(count);
  for (int i = 0; i < count; ++i) {
    const int64_t ts = int64_t{1'796'206'530} * 1'000'000 + int64_t{i} * 50'000;
    bodies.push_back(
        "{\"transaction_id\":\"tx-" + std::to_string(i) + "\",\"timestamp\":\"" +
        FormatRfc3339Micros(ts) + "\",\"amount\":\"" + std::to_string(100 + (i * 37) % 20000) +
        ".25\",\"currency\":\"USD\",\"sender\":{\"account\":\"ACC-" +
        std::to_string((i * 7919) % accounts) +
        "\",\"bank\":\"BANKUS33\",\"country\":\"US\",\"name\":\"John Smith\"},"
        "\"receiver\":{\"account\":\"ACC-" +
        std::to_string((i * 104729 + 1) % accounts) +
        "\",\"bank\":\"BANKGB22\",\"country\":\"GB\",\"name\":\"Acme Ltd\"},\"channel\":\"wire\","
        "\"type\":\"transfer\",\"remittance\":\"invoice 4411\",\"priority\":\"standard\","
        "\"deadline_ms\":200,\"metadata\":{\"switch_ref\":\"A1\"}}");
  }
  return bodies;
}

void BM_DecodeTransaction(benchmark::State& state) {
  const auto bodies = MakeBodies(4096, 1000);
  TransactionDecoder decoder;
  size_t i = 0;
  for (auto _ : state) {
    auto txn = decoder.DecodeOne(bodies[i++ % bodies.size()]);
    benchmark::DoNotOptimize(txn);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeTransaction);

void BM_DecodeAndDecide(benchmark::State& state) {
  const int accounts = static_cast<int>(state.range(0));
  const auto bodies = MakeBodies(1 << 16, accounts);
  MetricsRegistry metrics;
  // The journal is asynchronous here: this measures the decision pipeline, not fsync (the
  // journal's own benchmark measures durable commits).
  char dir[] = "/tmp/verdict-pipeline-bench-XXXXXX";
  const std::string data_dir = mkdtemp(dir);
  Result<EngineOptions> options = ParseEngineOptions(
      "[engine]\nworkers = 1\ndata_dir = \"" + data_dir + "\"\n[journal]\ndurability = \"async\"\n",
      "bench");
  auto engine = Engine::Create(*options, metrics, SystemClock::Instance());
  if (!engine.ok()) {
    state.SkipWithError(engine.status().ToString().c_str());
    return;
  }
  TransactionDecoder decoder;
  // Decisions are handed to the journal without waiting for each commit, as the workers do
  // when serving; every 1,024 the loop waits for the journal to catch up, so the figure
  // includes its work (on the writer thread) and not just the deciding thread's.
  std::atomic<int64_t> outstanding{0};
  size_t i = 0;
  for (auto _ : state) {
    auto txn = decoder.DecodeOne(bodies[i++ % bodies.size()]);
    outstanding.fetch_add(1, std::memory_order_relaxed);
    (*engine)->Decide(*txn, Caller{}, SystemClock::Instance().MonotonicNanos(), false,
                      [&outstanding](Result<Decision> d) {
                        benchmark::DoNotOptimize(d);
                        outstanding.fetch_sub(1, std::memory_order_release);
                      });
    if (i % 1024 == 0) {
      while (outstanding.load(std::memory_order_acquire) > 0) std::this_thread::yield();
    }
  }
  while (outstanding.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  state.SetItemsProcessed(state.iterations());
  engine->reset();
  std::filesystem::remove_all(data_dir);
}
BENCHMARK(BM_DecodeAndDecide)->Arg(1000)->Arg(100000);

}  // namespace
}  // namespace verdict

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}

namespace verdict {
namespace {

// Stage timings of every decision, from the journal's callbacks.
class StageSamples {
 public:
  void Add(const StageTimings& t) {
    MutexLock lock(mu_);
    features_us_.push_back(static_cast<double>(t.features_us));
    model_us_.push_back(static_cast<double>(t.model_us));
  }
  void Report(benchmark::State& state) {
    MutexLock lock(mu_);
    state.counters["features_p50_us"] = Quantile(features_us_, 0.50);
    state.counters["features_p99_us"] = Quantile(features_us_, 0.99);
    state.counters["model_p50_us"] = Quantile(model_us_, 0.50);
    state.counters["model_p99_us"] = Quantile(model_us_, 0.99);
  }

 private:
  static double Quantile(std::vector<double>& v, double q) {
    if (v.empty()) return 0;
    const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
  }

  Mutex mu_;
  std::vector<double> features_us_ GUARDED_BY(mu_);
  std::vector<double> model_us_ GUARDED_BY(mu_);
};

void BM_DecideWithModel(benchmark::State& state) {
  const char* model = std::getenv("VERDICT_BENCH_MODEL");
  if (model == nullptr) {
    state.SkipWithError("VERDICT_BENCH_MODEL (a model directory) is not set");
    return;
  }
  const bool detection = state.range(0) == 1;
  char dir[] = "/tmp/verdict-pipeline-bench-XXXXXX";
  const std::string data_dir = mkdtemp(dir);
  // A copy of the directory with or without the detection files (the manifest stays out: the
  // engine reads only the model files).
  const std::filesystem::path copy = std::filesystem::path(data_dir) / "model";
  std::filesystem::create_directories(copy);
  std::vector<std::string> files = {"model.json"};
  if (detection) files.insert(files.end(), {"anomaly.txt", "risk.json"});
  for (const std::string& f : files) {
    std::filesystem::copy_file(std::filesystem::path(model) / f, copy / f);
  }
  MetricsRegistry metrics;
  Result<EngineOptions> options =
      ParseEngineOptions("[engine]\nworkers = 1\ndata_dir = \"" + data_dir +
                             "/data\"\n[journal]\ndurability = \"async\"\n[model]\npath = \"" +
                             (copy / "model.json").string() + "\"\n",
                         "bench");
  auto engine = Engine::Create(*options, metrics, SystemClock::Instance());
  if (!engine.ok()) {
    state.SkipWithError(engine.status().ToString().c_str());
    return;
  }
  const auto bodies = MakeBodies(1 << 16, 100000);
  TransactionDecoder decoder;
  StageSamples samples;
  std::atomic<int64_t> outstanding{0};
  size_t i = 0;
  for (auto _ : state) {
    auto txn = decoder.DecodeOne(bodies[i++ % bodies.size()]);
    outstanding.fetch_add(1, std::memory_order_relaxed);
    (*engine)->Decide(*txn, Caller{}, SystemClock::Instance().MonotonicNanos(), false,
                      [&outstanding, &samples](Result<Decision> d) {
                        if (d.ok()) samples.Add(d->timings);
                        outstanding.fetch_sub(1, std::memory_order_release);
                      });
    if (i % 1024 == 0) {
      while (outstanding.load(std::memory_order_acquire) > 0) std::this_thread::yield();
    }
  }
  while (outstanding.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  state.SetItemsProcessed(state.iterations());
  samples.Report(state);
  engine->reset();
  std::filesystem::remove_all(data_dir);
}
BENCHMARK(BM_DecideWithModel)->Arg(0)->Arg(1);

}  // namespace
}  // namespace verdict
