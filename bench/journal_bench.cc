// Journal benchmarks, figures in docs/PERFORMANCE.md (Journal): durable decisions per second
// with group commit under many submitting threads (sync on, ~1 KB records, two state updates
// each), the enqueue-to-durable latency a decision pays, recovery time after N records, and
// what payload encryption costs with each cipher.
//
//   build/<dir>/bench/journal_bench                                  # defaults (200k recovery)
//   build/<dir>/bench/journal_bench --recovery_records=10000000 --benchmark_filter=Recovery
//                                                                    # the 10 M figure (~13 GB)
//   --bench_dir=DIR puts the data dirs on another disk (default: /tmp).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "features/feature_vector.h"
#include "journal/envelope.h"
#include "journal/journal.h"
#include "journal/key_file.h"
#include "journal/record.h"

namespace verdict::journal {
namespace {

std::string g_bench_dir = "/tmp";
uint64_t g_recovery_records = 200'000;

std::string FreshDir(const std::string& name) {
  std::string dir =
      g_bench_dir + "/verdict_journal_bench_" + std::to_string(::getpid()) + "_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

// About 1 KB encoded, like a real decision: input JSON, 32 features, a reason, contributions.
JournalEntry MakeEntry(uint64_t i) {
  JournalEntry e;
  JournalRecord& r = e.record;
  r.decided_at_us = 1'700'000'000'000'000 + static_cast<int64_t>(i);
  r.timestamp_us = r.decided_at_us - 300;
  r.tenant = "bank-a";
  r.principal = "switch-1";
  std::string sender = "ACC-" + std::to_string((i * 2654435761u) % 1'000'000);
  std::string receiver = "ACC-" + std::to_string((i * 40503u + 17) % 1'000'000);
  r.decision.transaction_id = "tx-" + std::to_string(i);
  r.canonical_input =
      R"({"amount":"9950.00","channel":"wire","currency":"USD","deadline_ms":200,)"
      R"("metadata":{"switch_ref":"A1"},"priority":"standard","receiver":{"account":")" +
      receiver + R"(","bank":"BANKGB22","country":"GB","name":"Acme Ltd"},)" +
      R"("remittance":"invoice 4411","sender":{"account":")" + sender +
      R"(","bank":"BANKUS33","country":"US","name":"John Smith"},)" +
      R"("timestamp":"2026-12-02T10:15:30.123Z","transaction_id":"tx-)" + std::to_string(i) +
      R"(","type":"transfer"})";
  r.accounts = {sender, receiver};
  // As large as the engine's records: its whole feature vector is journaled.
  r.feature_schema_version = std::string(kFeatureSchemaVersion);
  for (size_t f = 0; f < kFeatureCount; ++f) {
    r.features.push_back(static_cast<double>(i % 97) * 0.25 + static_cast<double>(f));
  }
  for (int b = 0; b < 8; ++b)
    r.decision.decision_id.bytes[15 - b] = static_cast<uint8_t>(i >> (8 * b));
  r.decision.decision_id.bytes[6] = 0x70;
  r.decision.outcome = Outcome::kReview;
  r.decision.score = 0.87;
  r.decision.reasons = {{"STRUCTURING", "structuring_24h", "4 amounts within 10% below 10,000"}};
  r.decision.contributions = {{"sender_near_threshold_count_24h", 4, 1.42},
                              {"amount_log", 9.2, 0.3}};
  r.decision.model = {"aml", "3", std::string(64, 'a')};
  r.decision.policy = {"7", std::string(64, 'b')};
  r.decision.timings = {12, 3, 9, 1, 0, 340};
  // Account state as the feature engine would store it: a few hundred bytes per account.
  for (const auto& [account, fill] : {std::pair{sender, 's'}, std::pair{receiver, 'r'}}) {
    StateUpdate& u = e.state_updates.emplace_back();
    u.key = "bank-a/" + account;
    u.value = std::string(200, fill);
  }
  return e;
}

// CPU time so far of this process's thread named `name` (0 if there is none), from /proc.
double ThreadCpuSeconds(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string task_name;
    std::getline(comm, task_name);
    if (task_name != name) continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    // Fields after the parenthesised name: state is field 3; utime and stime are 14 and 15.
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string field;
    long ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i >= 14) ticks += std::stol(field);
    }
    return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return 0;
}

// Args: submitting threads, durability (1 = sync), total decisions, window. A window of 0
// submits all decisions as fast as the threads can (a burst: the queue holds most of them at
// once, so memory is fresh and faults). A window W keeps at most W decisions waiting for
// their group commit, as the engine does with `[sched] journal_backlog` (256 by default).
// How payloads are stored: in the clear, or encrypted with one of the two ciphers.
enum class AtRest : int64_t { kClear = 0, kAes256Gcm = 1, kSm4CtrHmacSm3 = 2 };

void RunGroupCommit(benchmark::State& state, int threads, bool sync, uint64_t total, int64_t window,
                    AtRest at_rest) {
  for (auto _ : state) {
    state.PauseTiming();
    std::string dir = FreshDir("commit");
    JournalOptions o;
    o.data_dir = dir;
    o.durability = sync ? Durability::kSync : Durability::kAsync;
    if (at_rest != AtRest::kClear) {
      o.kek_file = dir + ".kek";
      std::filesystem::remove(o.kek_file);
      if (!WriteNewFile(o.kek_file, std::string(32, '\x42'), 0600).ok()) {
        state.SkipWithError("cannot write the KEK file");
        return;
      }
      o.cipher = at_rest == AtRest::kAes256Gcm ? PayloadCipherKind::kAes256Gcm
                                               : PayloadCipherKind::kSm4CtrHmacSm3;
    }
    MetricsRegistry metrics;
    o.metrics = &metrics;
    auto journal = Journal::Open(o);
    if (!journal.ok()) {
      state.SkipWithError(journal.status().ToString().c_str());
      return;
    }
    Journal& j = **journal;
    std::vector<std::vector<JournalEntry>> entries(threads);
    for (uint64_t i = 0; i < total; ++i) entries[i % threads].push_back(MakeEntry(i + 1));
    std::vector<int64_t> latency_ns(total + 1);
    std::atomic<uint64_t> done{0};
    std::atomic<uint64_t> failed{0};
    std::atomic<int64_t> outstanding{0};
    rusage usage_before{};
    getrusage(RUSAGE_SELF, &usage_before);
    // RocksDB's flush thread belongs to the process-wide Env and outlives this journal.
    const double flush_cpu_before = ThreadCpuSeconds("rocksdb:high");
    state.ResumeTiming();

    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> submitters;
    for (int t = 0; t < threads; ++t) {
      submitters.emplace_back([&, t] {
        for (JournalEntry& e : entries[t]) {
          for (int64_t now = outstanding.load(); window > 0 && now >= window;
               now = outstanding.load()) {
            outstanding.wait(now);
          }
          outstanding.fetch_add(1);
          int64_t t0 = std::chrono::steady_clock::now().time_since_epoch().count();
          auto seq = j.Enqueue(std::move(e), [&, t0](const Result<CommitInfo>& r) {
            if (!r.ok()) {
              failed.fetch_add(1);
            } else {
              latency_ns[r->seq] = std::chrono::steady_clock::now().time_since_epoch().count() - t0;
            }
            done.fetch_add(1);
            if (outstanding.fetch_sub(1) >= window && window > 0) outstanding.notify_all();
          });
          if (!seq.ok()) failed.fetch_add(1);
        }
      });
    }
    for (auto& s : submitters) s.join();
    Status flushed = j.Flush();
    auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(elapsed);

    state.PauseTiming();
    rusage usage_after{};
    getrusage(RUSAGE_SELF, &usage_after);
    auto cpu_s = [](const rusage& u) {
      return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
             static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
    };
    if (!flushed.ok() || failed.load() != 0) state.SkipWithError("journal commit failed");
    std::vector<int64_t> lat(latency_ns.begin() + 1, latency_ns.end());
    std::sort(lat.begin(), lat.end());
    auto pct = [&](double p) {
      return static_cast<double>(lat[static_cast<size_t>(p * (lat.size() - 1))]) / 1e3;
    };
    Counter* commits = metrics.GetCounter("verdict_journal_commits_total", "");
    state.counters["decisions_per_s"] = static_cast<double>(total) / elapsed;
    state.counters["durable_p50_us"] = pct(0.50);
    state.counters["durable_p99_us"] = pct(0.99);
    // CPU per decision, whole process (submitters, journal threads, RocksDB background) and
    // the journal's two threads: on a shared machine these are steadier than wall-clock rates.
    state.counters["cpu_us_per_decision"] =
        (cpu_s(usage_after) - cpu_s(usage_before)) * 1e6 / static_cast<double>(total);
    state.counters["writer_cpu_us_per_decision"] =
        ThreadCpuSeconds("journal-writer") * 1e6 / static_cast<double>(total);
    state.counters["committer_cpu_us_per_decision"] =
        ThreadCpuSeconds("journal-commit") * 1e6 / static_cast<double>(total);
    state.counters["flush_cpu_us_per_decision"] =
        (ThreadCpuSeconds("rocksdb:high") - flush_cpu_before) * 1e6 / static_cast<double>(total);
    state.counters["mean_group"] =
        commits->value() ? static_cast<double>(total) / static_cast<double>(commits->value()) : 0;
    journal->reset();
    std::filesystem::remove_all(dir);
    std::filesystem::remove(dir + ".kek");
    state.ResumeTiming();
  }
}

void BM_GroupCommit(benchmark::State& state) {
  RunGroupCommit(state, static_cast<int>(state.range(0)), state.range(1) != 0,
                 static_cast<uint64_t>(state.range(2)), state.range(3), AtRest::kClear);
}
BENCHMARK(BM_GroupCommit)
    ->ArgNames({"threads", "sync", "n", "window"})
    ->Args({1, 1, 200'000, 0})
    ->Args({4, 1, 200'000, 0})
    ->Args({16, 1, 200'000, 0})
    ->Args({4, 0, 200'000, 0})
    ->Args({4, 1, 200'000, 256})
    ->Args({4, 1, 200'000, 4096})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Decisions journaled per second and CPU per decision with payloads in the clear, under
// AES-256-GCM and under SM4-CTR/HMAC-SM3 (keyed index hashes with either cipher), side by side
// and alternating so that the machine's load falls on all three alike. Asynchronous durability:
// the figure is the CPU the encryption adds, not the disk's sync. Arg cipher: 0 clear, 1
// AES-256-GCM, 2 SM4.
void BM_EncryptedCommit(benchmark::State& state) {
  RunGroupCommit(state, 4, /*sync=*/false, 200'000, 0, static_cast<AtRest>(state.range(0)));
}
BENCHMARK(BM_EncryptedCommit)
    ->ArgName("cipher")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// One payload of a real decision's size encrypted and decrypted, on one thread: the cipher's
// own CPU per record. Arg cipher: 1 AES-256-GCM, 2 SM4-CTR/HMAC-SM3.
void BM_PayloadCipher(benchmark::State& state) {
  const auto kind =
      state.range(0) == 1 ? PayloadCipherKind::kAes256Gcm : PayloadCipherKind::kSm4CtrHmacSm3;
  auto cipher = PayloadCipher::Create(std::string(32, '\x42'), kind);
  if (!cipher.ok() || !(*cipher)->NewDataKey(1).ok()) {
    state.SkipWithError("no cipher");
    return;
  }
  std::string payload;
  EncodeRecordPayload(MakeEntry(7).record, payload);
  uint64_t seq = 0;
  for (auto _ : state) {
    Result<std::string> sealed = (*cipher)->Encrypt(++seq, payload);
    Result<std::string> opened = (*cipher)->Decrypt(seq, *sealed);
    benchmark::DoNotOptimize(opened);
  }
  state.counters["payload_bytes"] = static_cast<double>(payload.size());
}
BENCHMARK(BM_PayloadCipher)->ArgName("cipher")->Arg(1)->Arg(2)->Arg(1)->Arg(2);

// The seal of one stored account state (journal/state_seal.h): what a decision's thread adds per
// account whose state it stores (two per payment). Arg bytes: the state's size (about 0.5 KB).
void BM_StateSealTag(benchmark::State& state) {
  const StateSealer sealer(std::string(StateSealer::kSecretBytes, 'k'));
  std::string value(static_cast<size_t>(state.range(0)), 's');
  const std::string key = "bank-a/ACC-1234567";
  size_t i = 0;
  for (auto _ : state) {
    value[i++ % value.size()] ^= 1;
    benchmark::DoNotOptimize(sealer.Tag(key, value));
  }
}
BENCHMARK(BM_StateSealTag)->ArgName("bytes")->Arg(256)->Arg(512)->Arg(1024);

// What an fdatasync costs after a 1.5 KB write (a small group's frame or WAL record) at the end
// of a growing file (the WAL: the sync also writes the inode) or over blocks of a file written
// and synced beforehand (the commit log). Arg append: 1 or 0. Real time and the process's CPU.
void BM_FdatasyncAfterWrite(benchmark::State& state) {
  const bool append = state.range(0) != 0;
  constexpr size_t kWrite = 1500;
  constexpr size_t kFileBytes = size_t{16} << 20;  // more than any run writes
  const std::string dir = FreshDir("fdatasync");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/file";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  const std::string chunk(size_t{1} << 20, 'x');
  if (!append) {
    for (size_t done = 0; done < kFileBytes; done += chunk.size()) {
      if (write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size())) break;
    }
    fsync(fd);
  }
  uint64_t offset = 0;
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  for (auto _ : state) {
    if (offset + kWrite > kFileBytes) offset = 0;
    if (pwrite(fd, chunk.data(), kWrite, static_cast<off_t>(offset)) !=
            static_cast<ssize_t>(kWrite) ||
        fdatasync(fd) != 0) {
      state.SkipWithError("write or fdatasync failed");
      break;
    }
    offset += kWrite;
  }
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  auto cpu_us = [](const rusage& u) {
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  };
  state.counters["cpu_us_per_sync"] =
      (cpu_us(after) - cpu_us(before)) / static_cast<double>(state.iterations());
  close(fd);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_FdatasyncAfterWrite)
    ->ArgName("append")
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Iterations(3000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// One durable decision at a time, each waiting for its commit: what a lone group commit costs
// (arg commit_log: 0, a sync of the store's WAL; 1, a frame in the commit log through the page
// cache; 2, the same written with O_DIRECT). Real time per commit, and the process's CPU per
// commit.
void BM_SerialCommit(benchmark::State& state) {
  const bool commit_log = state.range(0) != 0;
  std::string dir = FreshDir("serial");
  JournalOptions o;
  o.data_dir = dir;
  o.durability = Durability::kSync;
  o.commit_log_bytes = commit_log ? uint64_t{64} << 20 : 0;
  o.commit_log_direct_io = state.range(0) == 2;
  auto journal = Journal::Open(o);
  if (!journal.ok()) {
    state.SkipWithError(journal.status().ToString().c_str());
    return;
  }
  Journal& j = **journal;
  uint64_t seq = 0;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t durable = 0;
  bool failed = false;
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  for (auto _ : state) {
    auto enqueued = j.Enqueue(MakeEntry(++seq), [&](const Result<CommitInfo>& r) {
      std::lock_guard lock(mu);
      failed |= !r.ok();
      ++durable;
      cv.notify_one();
    });
    if (!enqueued.ok()) {
      state.SkipWithError(enqueued.status().ToString().c_str());
      break;
    }
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return durable == seq; });
  }
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  auto cpu_us = [](const rusage& u) {
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  };
  if (failed) state.SkipWithError("journal commit failed");
  state.counters["cpu_us_per_commit"] = (cpu_us(after) - cpu_us(before)) / static_cast<double>(seq);
  // 0 where the file system refused O_DIRECT: commit_log:2 then measured the page cache too.
  state.counters["direct_io"] = j.commit_log_direct_io() ? 1 : 0;
  journal->reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SerialCommit)
    ->ArgName("commit_log")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(1)
    ->Arg(2)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Open-loop load at a fixed offered rate (decisions/s, from 4 threads) for 3 s: the time from
// Enqueue to the durable callback is the journal's share of a decision's latency.
void BM_LatencyAtRate(benchmark::State& state) {
  const int threads = 4;
  const double rate = static_cast<double>(state.range(0));
  const uint64_t total = static_cast<uint64_t>(rate * 3);
  for (auto _ : state) {
    state.PauseTiming();
    std::string dir = FreshDir("latency");
    JournalOptions o;
    o.data_dir = dir;
    auto journal = Journal::Open(o);
    if (!journal.ok()) {
      state.SkipWithError(journal.status().ToString().c_str());
      return;
    }
    Journal& j = **journal;
    std::vector<std::vector<JournalEntry>> entries(threads);
    for (uint64_t i = 0; i < total; ++i) entries[i % threads].push_back(MakeEntry(i + 1));
    std::vector<int64_t> latency_ns(total + 1);
    std::atomic<uint64_t> failed{0};
    state.ResumeTiming();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> submitters;
    for (int t = 0; t < threads; ++t) {
      submitters.emplace_back([&, t] {
        auto period = std::chrono::duration<double>(threads / rate);
        auto next = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                period * (static_cast<double>(t) / threads));
        for (JournalEntry& e : entries[t]) {
          std::this_thread::sleep_until(next);
          next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
          int64_t t0 = std::chrono::steady_clock::now().time_since_epoch().count();
          auto seq = j.Enqueue(std::move(e), [&, t0](const Result<CommitInfo>& r) {
            if (!r.ok()) {
              failed.fetch_add(1);
              return;
            }
            latency_ns[r->seq] = std::chrono::steady_clock::now().time_since_epoch().count() - t0;
          });
          if (!seq.ok()) failed.fetch_add(1);
        }
      });
    }
    for (auto& s : submitters) s.join();
    Status flushed = j.Flush();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    state.PauseTiming();
    if (!flushed.ok() || failed.load() != 0) state.SkipWithError("journal commit failed");
    std::vector<int64_t> lat(latency_ns.begin() + 1, latency_ns.end());
    std::sort(lat.begin(), lat.end());
    auto pct = [&](double p) {
      return static_cast<double>(
                 lat[static_cast<size_t>(p * static_cast<double>(lat.size() - 1))]) /
             1e3;
    };
    state.counters["offered_per_s"] = rate;
    state.counters["durable_p50_us"] = pct(0.50);
    state.counters["durable_p99_us"] = pct(0.99);
    state.counters["durable_max_us"] = pct(1.0);
    journal->reset();
    std::filesystem::remove_all(dir);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_LatencyAtRate)
    ->ArgName("rate")
    ->Arg(2'000)
    ->Arg(10'000)
    ->Arg(20'000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// An analyst's account listing (the 50 newest decisions of one account) after `n` decisions:
// what one read of GET /v1/accounts/{account}/decisions costs (on the I/O thread).
void BM_ListByAccount(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  std::string dir = FreshDir("list");
  JournalOptions o;
  o.data_dir = dir;
  o.durability = Durability::kAsync;
  auto j = Journal::Open(o);
  if (!j.ok()) {
    state.SkipWithError(j.status().ToString().c_str());
    return;
  }
  for (uint64_t i = 1; i <= n; ++i) {
    JournalEntry e = MakeEntry(i);
    if (i % 100 == 0) e.record.accounts[0] = "ACC-listed";
    if (!(*j)->Enqueue(std::move(e), [](const Result<CommitInfo>&) {}).ok()) {
      state.SkipWithError("enqueue failed");
      return;
    }
  }
  if (!(*j)->Flush().ok()) state.SkipWithError("flush failed");
  size_t listed = 0;
  for (auto _ : state) {
    auto records = (*j)->ListByAccount("bank-a", "ACC-listed", 50, UINT64_MAX);
    if (!records.ok()) {
      state.SkipWithError(records.status().ToString().c_str());
      break;
    }
    listed = records->size();
  }
  state.counters["listed"] = static_cast<double>(listed);
  j->reset();
  std::filesystem::remove_all(dir);
}
// The first listings after the burst are far slower (they run while the burst's memtables are
// flushed): a short run's mean is theirs, so the run is long enough for the steady state.
BENCHMARK(BM_ListByAccount)
    ->ArgName("decisions")
    ->Arg(100'000)
    ->MinTime(4)
    ->Unit(benchmark::kMicrosecond);

// Builds a journal of g_recovery_records records (about 1 M distinct accounts at 10 M), closes
// it, then times Journal::Open with every account state handed to a map, as the engine does.
// Argument 1: the store's files and whole chain are verified in the background after open
// (JournalOptions::verify_in_background, the default); its time to the end is verified_s. 0:
// only the checks at open. The fixture is built once and shared by both.
std::string g_recovery_dir;  // the BM_Recovery fixture, removed by main

bool BuildRecoveryFixture(benchmark::State& state, uint64_t n) {
  if (!g_recovery_dir.empty()) return true;
  g_recovery_dir = FreshDir("recovery");
  JournalOptions o;
  o.data_dir = g_recovery_dir;
  o.durability = Durability::kAsync;  // building the fixture; recovery does not care
  o.verify_in_background = false;
  auto j = Journal::Open(o);
  if (!j.ok()) {
    state.SkipWithError(j.status().ToString().c_str());
    return false;
  }
  for (uint64_t i = 1; i <= n; ++i) {
    auto seq = (*j)->Enqueue(MakeEntry(i), [](const Result<CommitInfo>&) {});
    if (!seq.ok()) {
      state.SkipWithError(seq.status().ToString().c_str());
      return false;
    }
  }
  if (!(*j)->Flush().ok()) {
    state.SkipWithError("flush failed");
    return false;
  }
  return true;
}

void BM_Recovery(benchmark::State& state) {
  const uint64_t n = g_recovery_records;
  const bool verify = state.range(0) != 0;
  if (!BuildRecoveryFixture(state, n)) return;
  size_t accounts = 0;
  for (auto _ : state) {
    std::unordered_map<std::string, std::string> recovered;
    JournalOptions o;
    o.data_dir = g_recovery_dir;
    o.verify_in_background = verify;
    o.on_recovered_state = [&](std::string_view k, std::string_view v, const StateTag*) {
      recovered.emplace(k, v);
      return Status::Ok();
    };
    auto start = std::chrono::steady_clock::now();
    auto j = Journal::Open(o);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!j.ok() || (*j)->durable_sequence() != n) {
      state.SkipWithError("recovery failed");
      break;
    }
    state.SetIterationTime(elapsed);
    state.counters["recovery_s"] = (*j)->recovery_seconds();
    while ((*j)->integrity().state == IntegrityState::kVerifying) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    state.counters["verified_s"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if ((*j)->integrity().state != IntegrityState::kVerified) {
      state.SkipWithError(("verification failed: " + (*j)->integrity().detail).c_str());
      break;
    }
    accounts = recovered.size();
  }
  state.counters["records"] = static_cast<double>(n);
  state.counters["accounts"] = static_cast<double>(accounts);
}
BENCHMARK(BM_Recovery)
    ->ArgName("verify_in_background")
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace verdict::journal

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--recovery_records=", 19) == 0) {
      verdict::journal::g_recovery_records = std::stoull(argv[i] + 19);
    } else if (std::strncmp(argv[i], "--bench_dir=", 12) == 0) {
      verdict::journal::g_bench_dir = argv[i] + 12;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!verdict::journal::g_recovery_dir.empty()) {
    std::filesystem::remove_all(verdict::journal::g_recovery_dir);
  }
  return 0;
}
