// The open-loop load generator: requests leave at their intended times (constant rate or
// Poisson) whatever the server does, and latency is measured from the intended time, so a
// stalled server shows as latency instead of as fewer requests (no coordinated omission).
// RunLoad is blocking and single-threaded; it owns its io_context and connections.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "load/input_request.h"
#include "load/latency_histogram.h"

namespace load {

// One tenant's traffic (`--tenant NAME:RATE[:KEY]`): its own arrival process at its own rate,
// its own connections, and `Authorization: Bearer KEY` on each request when a key is given.
struct TenantLoad {
  std::string name;
  double rate_per_s = 0;
  std::string key;
};

struct LoadOptions {
  std::string host = "127.0.0.1";  // loopback only: anything else is refused
  uint16_t port = 8080;
  std::string path = "/v1/decisions";
  double rate_per_s = 1000;
  double duration_s = 10;
  int connections = 32;  // shared out among the classes of the mix by their shares (≥ 8 each)
  // A class whose connections are all busy opens another while requests wait for one, as a
  // client's pool grows: each pool up to max_connections / connections times its first size
  // (so about max_connections in all, more where the 8-per-class floor applies). 0: only the
  // first pools (beyond capacity the backlog then waits in the generator, unseen by the server).
  int max_connections = 0;
  bool poisson = false;
  // Share of requests per priority class; normalized. Keys: realtime, standard, bulk.
  std::map<std::string, double> mix = {{"standard", 1.0}};
  // Deadline per class used to count `within_deadline` (the engine's defaults); an input
  // line's own shorter deadline_ms takes its place for that request (input_request.h).
  std::map<std::string, int64_t> deadline_us = {
      {"realtime", 50'000}, {"standard", 200'000}, {"bulk", 2'000'000}};
  // Transaction JSON objects, one per line (e.g. converted simulator output); empty: generate.
  std::vector<InputLine> input_lines;
  // How far each round through input_lines moves their timestamps (0: not at all).
  int64_t input_period_us = 0;
  // Requests already made from input_lines against the same engine (earlier --ramp steps):
  // numbering goes on from here, so no transaction id repeats. A repeated id would be an
  // idempotent replay, answered from the journal without a decision, and flatter the step.
  uint64_t first_sequence = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  uint64_t max_requests = 50'000'000;
  // After the sending window closes, how long to wait for answers still outstanding.
  double drain_s = 5;
  uint64_t seed = 1;
  int accounts = 10'000;  // generated traffic: distinct sender/receiver accounts
  // Empty: one stream at rate_per_s. Otherwise one stream per tenant at its own rate (the
  // mix applies to each), rate_per_s is ignored, and results are also kept per tenant.
  std::vector<TenantLoad> tenants;
  // Keep one TimelineSample per answer (LoadResult::timeline), to see when slow answers
  // happened: a burst of them at one moment is a stall, spread out they are queueing.
  bool keep_timeline = false;
  // Spin on the event loop instead of sleeping in epoll_wait between sends and answers. On a
  // VM, a vCPU that halts while idle takes up to milliseconds to be woken, and an open-loop
  // generator would count its own late wake-ups as the server's latency (see
  // docs/perf-log/2026-12-05-load-session-17.md). Costs the generator's whole core.
  bool busy_poll = false;
  // A 429 with `Retry-After: SECONDS` is not the request's answer: its connection sends nothing
  // for that long and then sends the request again (its latency still runs from the intended
  // time), as a client that honours Retry-After would, up to 10 times (then the last 429 is the
  // answer). Off: the 429 is the answer, and the connection takes the next request at once.
  bool honor_retry_after = false;
};

struct TimelineSample {
  int64_t intended_us;  // intended send time, from the start of sending
  int64_t latency_us;
  int status;  // HTTP code; 0 = connection lost
  std::string klass;
  std::string tenant;  // with --tenant; empty otherwise
};

struct ClassStats {
  uint64_t sent = 0;  // intended requests (each counts, answered or not)
  uint64_t answered = 0;
  uint64_t within_deadline = 0;    // HTTP 200 within the class deadline
  uint64_t fallback = 0;           // answered with "path":"fallback"
  uint64_t retried = 0;            // 429s sent again after their Retry-After (honor_retry_after)
  std::map<int, uint64_t> status;  // final HTTP code -> count; 0 = connection error
  LatencyHistogram latency;
  void Merge(const ClassStats& other);
};

struct TenantStats {
  ClassStats overall;
  std::map<std::string, ClassStats> by_class;
};

struct LoadResult {
  double rate_per_s = 0;
  double elapsed_s = 0;                       // sending window plus drain
  double window_s = 0;                        // sending window
  std::map<std::string, size_t> connections;  // opened, by class (more if the pools grew)
  ClassStats overall;
  std::map<std::string, ClassStats> by_class;
  std::map<std::string, double> tenant_rate_per_s;  // offered, by tenant (with --tenant)
  std::map<std::string, TenantStats> by_tenant;     // with --tenant only
  std::vector<TimelineSample> timeline;             // with keep_timeline, in answer order
};

// Parses "NAME:RATE[:KEY]"; errors name --tenant.
verdict::Result<TenantLoad> ParseTenantLoad(const std::string& text);

// Refuses non-loopback targets and bad options with a Status naming the option.
verdict::Result<LoadResult> RunLoad(const LoadOptions& options);

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackHost(const std::string& host);

}  // namespace load
