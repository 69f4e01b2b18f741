// The cluster journal's storage alone (PgPartitionLog, src/cluster): fenced group appends to
// PostgreSQL, as many groups a second as one committing thread gets, by group size. With
// Patroni's synchronous standby (bench/cluster/pg_append.sh starts one through
// scripts/cluster) each commit waits for the standby's disk too. Needs VERDICT_PG_URL; without it
// the binary says so and runs nothing, so `make bench` passes on a machine without a cluster.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "cluster/pg_partition_log.h"

namespace verdict::cluster {
namespace {

// A journal record is about this size encoded (a decision with its features and reasons).
constexpr size_t kRecordBytes = 640;

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void BM_PgAppend(benchmark::State& state) {
  const char* url = std::getenv("VERDICT_PG_URL");
  const auto group_size = static_cast<size_t>(state.range(0));
  const uint32_t partition = static_cast<uint32_t>(state.range(1));
  auto log = PgPartitionLog::Open(url, 64);
  if (!log.ok()) {
    state.SkipWithError(log.status().ToString().c_str());
    return;
  }
  // A fresh epoch per run: the bench owns the partition from here on.
  auto head = (*log)->Head(partition);
  if (!head.ok()) {
    state.SkipWithError(head.status().ToString().c_str());
    return;
  }
  const uint64_t epoch = head->epoch + 1;
  auto claimed = (*log)->Claim(partition, "bench", epoch);
  if (!claimed.ok()) {
    state.SkipWithError(claimed.status().ToString().c_str());
    return;
  }
  uint64_t seq = claimed->seq;
  std::vector<LogRecord> group(group_size);
  for (auto& r : group) {
    r.record.assign(kRecordBytes, 'r');
    r.hash.assign(32, 'h');
  }
  size_t records = 0;
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    for (auto& r : group) r.seq = ++seq;
    Status appended = (*log)->Append(partition, epoch, group);
    if (!appended.ok()) {
      state.SkipWithError(appended.ToString().c_str());
      return;
    }
    records += group_size;
  }
  state.counters["records_per_s"] =
      benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
  state.counters["client_cpu_us_per_record"] =
      (ProcessCpuSeconds() - cpu_start) * 1e6 / static_cast<double>(records ? records : 1);
}
// Group sizes as the journal's group commit forms them (one at low load, hundreds under a
// backlog); each size its own partition, so runs do not share a fence row.
BENCHMARK(BM_PgAppend)
    ->Args({1, 0})
    ->Args({16, 1})
    ->Args({128, 2})
    ->Args({1024, 3})
    ->UseRealTime()
    ->MinTime(2.0);

}  // namespace
}  // namespace verdict::cluster

int main(int argc, char** argv) {
  if (std::getenv("VERDICT_PG_URL") == nullptr) {
    std::fprintf(stderr,
                 "pg_append_bench: set VERDICT_PG_URL (bench/cluster/pg_append.sh starts a "
                 "cluster and sets it); nothing to run\n");
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
