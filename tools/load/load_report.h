// Rendering of load results as verdict-load's JSON report (what the load scenarios and
// integration tests read) and as text.
// Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "load/load_generator.h"

namespace load {

// {"rate_per_s":…,"overall":{…},"by_class":{"standard":{…}}}; each class object holds sent,
// answered, within_deadline, fallback, status, p50_us, p90_us, p99_us, p999_us, max_us,
// throughput_per_s, goodput_per_s. With tenants, also "by_tenant":{"NAME":{"rate_per_s":…,
// "overall":{…},"by_class":{…}}}.
std::string ResultToJson(const LoadResult& result);
std::string ResultToText(const LoadResult& result);

// The highest step rate whose standard (or, absent, overall) p99 is at most p99_limit_us and
// whose answers were all within deadline; 0 when none qualifies.
double KneeRate(const std::vector<LoadResult>& steps, int64_t p99_limit_us);

}  // namespace load
