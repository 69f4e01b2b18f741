// ProcessMetrics: the standard process series of Prometheus' client libraries (process_*: CPU
// seconds, resident and virtual memory, open and maximum file descriptors, start time), read from
// /proc when /metrics is scraped, plus `verdict_build_info{version}` = 1, so that dashboards and
// alerts written for any Prometheus-instrumented service work unchanged. Owns nothing but
// pointers into the registry, which must outlive it. Refresh is thread-safe (gauges are atomic;
// two scrapes at once each write a current value).
#pragma once

#include <string>

#include "common/metrics.h"

namespace verdict {

class ProcessMetrics {
 public:
  ProcessMetrics(MetricsRegistry& metrics, const std::string& version);

  // Reads /proc/self and the file descriptor limit into the gauges. A value that cannot be read
  // keeps its last one.
  void Refresh();

  // Refresh on every scrape of `metrics` (MetricsRegistry::AddCollector); the ProcessMetrics must
  // then outlive the registry's last render.
  void RefreshWhenRendered(MetricsRegistry& metrics) {
    metrics.AddCollector([this] { Refresh(); });
  }

 private:
  Gauge* cpu_seconds_;
  Gauge* resident_bytes_;
  Gauge* virtual_bytes_;
  Gauge* open_fds_;
  Gauge* max_fds_;
  Gauge* start_time_seconds_;
};

}  // namespace verdict
