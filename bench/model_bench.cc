// The tree-ensemble runtime (src/model) side by side with XGBoost's C API on the same model,
// single-threaded: one-row margin, batch margin per row, TreeSHAP per row. Models are trained
// at start-up from synthetic data with a fixed seed (binary:logistic, 40 features, 10% missing),
// only for the benchmarks selected by --benchmark_filter.
#include <benchmark/benchmark.h>
#include <xgboost/c_api.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "model/forest.h"

namespace verdict::model {
namespace {

constexpr size_t kFeatures = 40;
constexpr size_t kTrainRows = 4000;
constexpr size_t kEvalRows = 1024;

void Check(int rc) {
  if (rc != 0) {
    std::fprintf(stderr, "xgboost: %s\n", XGBGetLastError());
    std::abort();
  }
}

std::vector<float> MakeRows(size_t rows, uint32_t seed, std::vector<float>* labels) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> x(rows * kFeatures);
  for (size_t r = 0; r < rows; ++r) {
    float* row = &x[r * kFeatures];
    double score = 0;
    for (size_t c = 0; c < kFeatures; ++c) {
      row[c] = normal(rng);
      score += (c % 3 == 0 ? 1.0 : -0.5) * std::sin(row[c] * (1 + c % 5)) / (1 + c % 7);
    }
    score += row[0] * row[1] - 0.7 * row[2] * row[3] + 0.5 * normal(rng);
    for (size_t c = 0; c < kFeatures; ++c) {
      if (uniform(rng) < 0.1f) row[c] = std::numeric_limits<float>::quiet_NaN();
    }
    if (labels != nullptr) labels->push_back(score > 0 ? 1.0f : 0.0f);
  }
  return x;
}

// One trained model, the same model compiled by us, and rows to score.
struct Bundle {
  BoosterHandle booster = nullptr;
  DMatrixHandle proxy = nullptr;
  std::shared_ptr<const Forest> forest;
  std::vector<float> rows;
  std::vector<DMatrixHandle> row_matrices;  // one-row DMatrix per row, for pred_contribs
  DMatrixHandle batch32 = nullptr;
};

Bundle& GetBundle(int trees, int depth) {
  static std::map<std::pair<int, int>, Bundle> bundles;
  auto [it, inserted] = bundles.try_emplace({trees, depth});
  Bundle& b = it->second;
  if (!inserted) return b;
  std::vector<float> labels;
  const std::vector<float> train = MakeRows(kTrainRows, 42, &labels);
  DMatrixHandle dtrain = nullptr;
  Check(XGDMatrixCreateFromMat(train.data(), kTrainRows, kFeatures,
                               std::numeric_limits<float>::quiet_NaN(), &dtrain));
  Check(XGDMatrixSetFloatInfo(dtrain, "label", labels.data(), kTrainRows));
  Check(XGBoosterCreate(&dtrain, 1, &b.booster));
  Check(XGBoosterSetParam(b.booster, "objective", "binary:logistic"));
  Check(XGBoosterSetParam(b.booster, "tree_method", "hist"));
  Check(XGBoosterSetParam(b.booster, "max_depth", std::to_string(depth).c_str()));
  Check(XGBoosterSetParam(b.booster, "eta", "0.1"));
  Check(XGBoosterSetParam(b.booster, "min_child_weight", "0.1"));
  Check(XGBoosterSetParam(b.booster, "seed", "1"));
  Check(XGBoosterSetParam(b.booster, "nthread", "1"));
  for (int i = 0; i < trees; ++i) Check(XGBoosterUpdateOneIter(b.booster, i, dtrain));
  Check(XGDMatrixFree(dtrain));
  // Every measurement is single-threaded.
  Check(XGBoosterSetParam(b.booster, "nthread", "1"));
  bst_ulong length = 0;
  const char* json = nullptr;
  Check(XGBoosterSaveModelToBuffer(b.booster, "{\"format\":\"json\"}", &length, &json));
  auto forest = Forest::LoadXGBoostJson(std::string_view(json, length));
  if (!forest.ok()) {
    std::fprintf(stderr, "load: %s\n", forest.status().ToString().c_str());
    std::abort();
  }
  b.forest = *forest;
  b.rows = MakeRows(kEvalRows, 7, nullptr);
  Check(XGProxyDMatrixCreate(&b.proxy));
  for (size_t r = 0; r < 64; ++r) {
    DMatrixHandle m = nullptr;
    Check(XGDMatrixCreateFromMat(&b.rows[r * kFeatures], 1, kFeatures,
                                 std::numeric_limits<float>::quiet_NaN(), &m));
    b.row_matrices.push_back(m);
  }
  Check(XGDMatrixCreateFromMat(b.rows.data(), 32, kFeatures,
                               std::numeric_limits<float>::quiet_NaN(), &b.batch32));
  std::fprintf(stderr, "trained %d trees depth %d: %zu nodes\n", trees, depth,
               b.forest->num_nodes());
  return b;
}

std::string ArrayInterface(const float* data, size_t rows) {
  char text[256];
  std::snprintf(text, sizeof(text),
                "{\"data\":[%llu,true],\"shape\":[%zu,%zu],\"typestr\":\"<f4\",\"version\":3}",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(data)), rows,
                kFeatures);
  return text;
}

constexpr char kMarginConfig[] =
    "{\"type\":1,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
    "\"strict_shape\":false,\"missing\":NaN,\"cache_id\":0}";
constexpr char kContribsConfig[] =
    "{\"type\":2,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
    "\"strict_shape\":false}";

void SetPerRow(benchmark::State& state, size_t rows_per_iteration) {
  state.counters["per_row"] = benchmark::Counter(
      static_cast<double>(rows_per_iteration),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void OursSingleRow(benchmark::State& state, int trees, int depth) {
  Bundle& b = GetBundle(trees, depth);
  size_t r = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.forest->PredictMargin(&b.rows[r * kFeatures]));
    r = (r + 1) % kEvalRows;
  }
  SetPerRow(state, 1);
}

// reuse_proxy: pass a proxy DMatrix created once (XGBoost's fastest one-row call).
void XgbSingleRow(benchmark::State& state, int trees, int depth, bool reuse_proxy) {
  Bundle& b = GetBundle(trees, depth);
  std::vector<std::string> interfaces;
  for (size_t r = 0; r < kEvalRows; ++r) {
    interfaces.push_back(ArrayInterface(&b.rows[r * kFeatures], 1));
  }
  size_t r = 0;
  for (auto _ : state) {
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    Check(XGBoosterPredictFromDense(b.booster, interfaces[r].c_str(), kMarginConfig,
                                    reuse_proxy ? b.proxy : nullptr, &shape, &dim, &result));
    benchmark::DoNotOptimize(result[0]);
    r = (r + 1) % kEvalRows;
  }
  SetPerRow(state, 1);
}

void OursBatch(benchmark::State& state, int trees, int depth) {
  Bundle& b = GetBundle(trees, depth);
  std::vector<float> out(kEvalRows);
  for (auto _ : state) {
    b.forest->PredictMarginBatch(b.rows.data(), kEvalRows, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetPerRow(state, kEvalRows);
}

void XgbBatch(benchmark::State& state, int trees, int depth) {
  Bundle& b = GetBundle(trees, depth);
  const std::string interface = ArrayInterface(b.rows.data(), kEvalRows);
  for (auto _ : state) {
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    Check(XGBoosterPredictFromDense(b.booster, interface.c_str(), kMarginConfig, b.proxy, &shape,
                                    &dim, &result));
    benchmark::DoNotOptimize(result[0]);
  }
  SetPerRow(state, kEvalRows);
}

void OursTreeShap(benchmark::State& state, int trees, int depth) {
  Bundle& b = GetBundle(trees, depth);
  std::vector<double> phi(kFeatures + 1);
  size_t r = 0;
  for (auto _ : state) {
    b.forest->ExplainTreeShap(&b.rows[r * kFeatures], phi.data());
    benchmark::DoNotOptimize(phi.data());
    benchmark::ClobberMemory();
    r = (r + 1) % kEvalRows;
  }
  SetPerRow(state, 1);
}

void OursSaabas(benchmark::State& state, int trees, int depth) {
  Bundle& b = GetBundle(trees, depth);
  std::vector<double> phi(kFeatures + 1);
  size_t r = 0;
  for (auto _ : state) {
    b.forest->ExplainSaabas(&b.rows[r * kFeatures], phi.data());
    benchmark::DoNotOptimize(phi.data());
    benchmark::ClobberMemory();
    r = (r + 1) % kEvalRows;
  }
  SetPerRow(state, 1);
}

// pred_contribs has no in-place form; the DMatrix is built before timing. batch32: per row
// of a 32-row call, which amortizes XGBoost's per-call set-up.
void XgbContribs(benchmark::State& state, int trees, int depth, bool batch32) {
  Bundle& b = GetBundle(trees, depth);
  size_t r = 0;
  for (auto _ : state) {
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    Check(XGBoosterPredictFromDMatrix(b.booster, batch32 ? b.batch32 : b.row_matrices[r],
                                      kContribsConfig, &shape, &dim, &result));
    benchmark::DoNotOptimize(result[0]);
    r = (r + 1) % b.row_matrices.size();
  }
  SetPerRow(state, batch32 ? 32 : 1);
}

void Register() {
  std::vector<std::pair<int, int>> shapes = {{300, 6}};
  for (int trees : {100, 1000}) {
    for (int depth = 4; depth <= 8; ++depth) shapes.push_back({trees, depth});
  }
  for (auto [trees, depth] : shapes) {
    const std::string suffix =
        "/trees:" + std::to_string(trees) + "/depth:" + std::to_string(depth);
    benchmark::RegisterBenchmark(("Ours/SingleRow" + suffix).c_str(), OursSingleRow, trees, depth);
    benchmark::RegisterBenchmark(("Xgb/SingleRow" + suffix).c_str(), XgbSingleRow, trees, depth,
                                 false);
    benchmark::RegisterBenchmark(("Xgb/SingleRowProxy" + suffix).c_str(), XgbSingleRow, trees,
                                 depth, true);
    benchmark::RegisterBenchmark(("Ours/Batch1024" + suffix).c_str(), OursBatch, trees, depth);
    benchmark::RegisterBenchmark(("Xgb/Batch1024" + suffix).c_str(), XgbBatch, trees, depth);
    benchmark::RegisterBenchmark(("Ours/TreeShap" + suffix).c_str(), OursTreeShap, trees, depth);
    benchmark::RegisterBenchmark(("Ours/Saabas" + suffix).c_str(), OursSaabas, trees, depth);
    benchmark::RegisterBenchmark(("Xgb/Contribs" + suffix).c_str(), XgbContribs, trees, depth,
                                 false);
    benchmark::RegisterBenchmark(("Xgb/ContribsBatch32" + suffix).c_str(), XgbContribs, trees,
                                 depth, true);
  }
}

}  // namespace
}  // namespace verdict::model

int main(int argc, char** argv) {
  verdict::model::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
