// Feature engine benchmarks, figures in docs/PERFORMANCE.md (Features): extraction per
// transaction against a warmed store of 1 M (or 10 M) simulated accounts, memory per account of
// that store, and the simulator's throughput. The population is the simulator's (docs/sim.md):
// 30 days of history are replayed into the store untimed, then day 31's transactions are timed.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdio>
#include <map>
#include <memory>
#include <vector>

#include "features/feature_stream.h"
#include "sim/simulator.h"

namespace verdict {
namespace {

struct Warmed {
  FeatureExtractor extractor;
  std::unique_ptr<FeatureStream> stream;
  std::vector<Transaction> held_out;  // the last simulated day, not applied
  double bytes_per_account = 0;
  double heap_bytes_per_account = 0;  // the accounts' state blocks alone (AccountState::HeapBytes)
  size_t accounts = 0;
  size_t history = 0;
};

Warmed& WarmedStore(uint32_t accounts) {
  static std::map<uint32_t, std::unique_ptr<Warmed>> cache;
  auto& slot = cache[accounts];
  if (slot) return *slot;
  slot = std::make_unique<Warmed>();
  Warmed& w = *slot;
  SimOptions options;
  options.accounts = accounts;
  options.days = 31;
  options.seed = 1;
  auto sim = Simulator::Create(options);
  if (!sim.ok()) std::abort();
  const int64_t held_out_from = options.start_us + int64_t{30} * 86'400'000'000;
  // Heap in use, small chunks plus mmapped blocks (large arrays such as hash buckets).
  auto heap_in_use = [] {
    const struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
  };
  const size_t before = heap_in_use();
  w.stream = std::make_unique<FeatureStream>(w.extractor, 64);
  FeatureVector f{};
  Status s = (*sim)->Run([&](const LabelledTransaction& t) {
    if (t.txn.timestamp_us >= held_out_from) {
      w.held_out.push_back(t.txn);
    } else {
      w.stream->Process(t.txn, &f);
      ++w.history;
    }
    return Status::Ok();
  });
  if (!s.ok()) std::abort();
  // The held-out transactions are measured apart from the store.
  size_t held_out_bytes = w.held_out.capacity() * sizeof(Transaction);
  const size_t after = heap_in_use();
  w.accounts = w.stream->store().AccountCount();
  size_t heap = 0;
  double entries[7] = {};  // recent, buckets, peers (sent), the same (received), paths
  w.stream->store().ForEach([&](uint64_t, const AccountState& a) {
    heap += a.HeapBytes();
    entries[0] += a.out().recent().size();
    entries[1] += a.out().buckets().size();
    entries[2] += a.out().peers().size();
    entries[3] += a.in().recent().size();
    entries[4] += a.in().buckets().size();
    entries[5] += a.in().peers().size();
    entries[6] += a.paths().size();
  });
  for (double& e : entries) e /= static_cast<double>(w.stream->store().AccountCount());
  std::fprintf(stderr,
               "mean entries per account: sent recent %.2f buckets %.2f peers %.2f; received "
               "recent %.2f buckets %.2f peers %.2f; paths %.2f; sizeof(AccountState) %zu\n",
               entries[0], entries[1], entries[2], entries[3], entries[4], entries[5], entries[6],
               sizeof(AccountState));
  w.bytes_per_account =
      static_cast<double>(after - before - held_out_bytes) / static_cast<double>(w.accounts);
  w.heap_bytes_per_account = static_cast<double>(heap) / static_cast<double>(w.accounts);
  std::fprintf(stderr,
               "warmed %zu accounts with %zu transactions; %zu held out; %.1f bytes/account "
               "(of which %.1f in the accounts' state blocks)\n",
               w.accounts, w.history, w.held_out.size(), w.bytes_per_account,
               w.heap_bytes_per_account);
  return w;
}

void SetCounters(benchmark::State& state, const Warmed& w) {
  state.counters["accounts"] = static_cast<double>(w.accounts);
  state.counters["bytes_per_account"] = w.bytes_per_account;
  state.counters["block_bytes_per_account"] = w.heap_bytes_per_account;
}

// Extraction alone (stripe locks, lookups, the whole feature vector), as of each held-out
// transaction; the state is not changed, so iterations can cycle over the held-out day.
void BM_Extract(benchmark::State& state) {
  Warmed& w = WarmedStore(static_cast<uint32_t>(state.range(0)));
  FeatureVector f{};
  size_t i = 0;
  for (auto _ : state) {
    const Transaction& t = w.held_out[i];
    w.stream->store().WithAccounts(
        t.sender.ref.account, t.receiver.ref.account,
        [&](AccountState& s, AccountState& r) { w.extractor.Extract(t, s, r, &f); });
    benchmark::DoNotOptimize(f);
    if (++i == w.held_out.size()) i = 0;
  }
  SetCounters(state, w);
}

// Extract then apply, as the engine does per decision; each held-out transaction once.
void BM_ExtractAndApply(benchmark::State& state) {
  Warmed& w = WarmedStore(static_cast<uint32_t>(state.range(0)));
  FeatureVector f{};
  size_t i = 0;
  for (auto _ : state) {
    w.stream->Process(w.held_out[i], &f);
    benchmark::DoNotOptimize(f);
    if (++i == w.held_out.size()) i = 0;  // wraps only when asked for more than a day
  }
  SetCounters(state, w);
}

void BM_Simulate(benchmark::State& state) {
  SimOptions options;
  options.accounts = static_cast<uint32_t>(state.range(0));
  options.days = 30;
  size_t transactions = 0;
  for (auto _ : state) {
    auto sim = Simulator::Create(options);
    if (!sim.ok()) std::abort();
    Status s = (*sim)->Run([&](const LabelledTransaction& t) {
      benchmark::DoNotOptimize(t.txn.amount);
      ++transactions;
      return Status::Ok();
    });
    if (!s.ok()) std::abort();
  }
  state.counters["transactions_per_s"] =
      benchmark::Counter(static_cast<double>(transactions), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_Extract)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_ExtractAndApply)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Iterations(500'000)
    ->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Simulate)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace verdict

BENCHMARK_MAIN();
