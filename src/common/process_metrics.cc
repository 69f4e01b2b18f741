#include "common/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace verdict {
namespace {

// A non-negative number, or -1 when `text` is not one (never throws: a scrape must not fail).
double ParseNumber(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && value >= 0 ? value : -1;
}

// The fields of /proc/self/stat after the command name (which may hold spaces, so the text
// after its closing parenthesis is split), numbered as proc(5) numbers them from 3 on.
std::vector<std::string> StatFields() {
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream rest(text.substr(close + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// proc(5) field N (1-based) among StatFields, or -1.
double StatField(const std::vector<std::string>& fields, size_t n) {
  if (n < 3 || n - 3 >= fields.size()) return -1;
  return ParseNumber(fields[n - 3]);
}

// Seconds since the epoch at which the machine booted (/proc/stat "btime"), or -1.
double BootTimeSeconds() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("btime ", 0) == 0) return ParseNumber(line.substr(6));
  }
  return -1;
}

}  // namespace

ProcessMetrics::ProcessMetrics(MetricsRegistry& metrics, const std::string& version)
    : cpu_seconds_(metrics.GetGauge("process_cpu_seconds_total",
                                    "User and system CPU time spent in seconds")),
      resident_bytes_(
          metrics.GetGauge("process_resident_memory_bytes", "Resident memory size in bytes")),
      virtual_bytes_(
          metrics.GetGauge("process_virtual_memory_bytes", "Virtual memory size in bytes")),
      open_fds_(metrics.GetGauge("process_open_fds", "Number of open file descriptors")),
      max_fds_(metrics.GetGauge("process_max_fds", "Maximum number of open file descriptors")),
      start_time_seconds_(metrics.GetGauge(
          "process_start_time_seconds", "Start time of the process since the epoch in seconds")) {
  metrics
      .GetGauge("verdict_build_info", "The running build: always 1, its version as a label",
                {{"version", version}})
      ->Set(1);
  Refresh();
}

void ProcessMetrics::Refresh() {
  const std::vector<std::string> stat = StatFields();
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const double utime = StatField(stat, 14), stime = StatField(stat, 15);
  if (utime >= 0 && stime >= 0 && ticks > 0) cpu_seconds_->Set((utime + stime) / ticks);
  if (const double vsize = StatField(stat, 23); vsize >= 0) virtual_bytes_->Set(vsize);
  if (const double rss = StatField(stat, 24); rss >= 0) resident_bytes_->Set(rss * page);
  if (const double start = StatField(stat, 22); start >= 0 && ticks > 0) {
    if (const double boot = BootTimeSeconds(); boot >= 0) {
      start_time_seconds_->Set(boot + start / ticks);
    }
  }
  std::error_code ec;
  size_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  if (!ec) open_fds_->Set(static_cast<double>(fds));
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    max_fds_->Set(static_cast<double>(limit.rlim_cur));
  }
}

}  // namespace verdict
