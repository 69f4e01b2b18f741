// A small metrics registry: counters, gauges and fixed-bucket histograms, rendered in the
// Prometheus text exposition format (0.0.4). The registry owns every metric; pointers it
// returns stay valid for its lifetime. Registration takes a mutex; updates are lock-free
// atomics and safe from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Increment(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `upper_bounds` must be strictly increasing; a +Inf bucket is implicit.
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double v);

  const std::vector<double>& upper_bounds() const { return bounds_; }
  // Non-cumulative count of bucket i (i == upper_bounds().size() is the +Inf bucket).
  uint64_t bucket_count(size_t i) const { return counts_[i].load(std::memory_order_relaxed); }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

// Bucket bounds for latencies in seconds, 10 µs to 10 s.
std::vector<double> LatencyBucketsSeconds();

class MetricsRegistry {
 public:
  // Returns the metric with this name and label set, creating it on first use. A name used
  // with two types, or a histogram name with two bucket layouts, aborts: that is a programming
  // error caught by any test that touches the metric.
  Counter* GetCounter(const std::string& name, const std::string& help,
                      const MetricLabels& labels = {}) EXCLUDES(mu_);
  Gauge* GetGauge(const std::string& name, const std::string& help, const MetricLabels& labels = {})
      EXCLUDES(mu_);
  Histogram* GetHistogram(const std::string& name, const std::string& help,
                          const std::vector<double>& upper_bounds, const MetricLabels& labels = {})
      EXCLUDES(mu_);

  // Every series, or with `only_tenant` only those that carry no `tenant` label or carry that
  // one: what a tenant's own key may see (I7; decision counts, rate-limit refusals and drift of
  // its own models are per tenant, the engine-wide series are not).
  std::string RenderPrometheus(const std::optional<std::string>& only_tenant = std::nullopt) const
      EXCLUDES(mu_);

  // Runs `collect` at the start of every RenderPrometheus, outside the registry's lock: for
  // values read when scraped (the process' CPU and memory) rather than updated as they change.
  // Whatever it captures must outlive the registry's last render.
  void AddCollector(std::function<void()> collect) EXCLUDES(mu_);

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Family {
    Type type;
    std::string help;
    std::vector<double> bounds;
    // Keyed by the rendered label set, e.g. `route="/healthz",status="200"`.
    std::map<std::string, std::unique_ptr<Counter>> counters;
    std::map<std::string, std::unique_ptr<Gauge>> gauges;
    std::map<std::string, std::unique_ptr<Histogram>> histograms;
  };
  Family& FamilyFor(const std::string& name, Type type, const std::string& help) REQUIRES(mu_);

  // Registration and rendering only; the metrics' own updates never take it.
  mutable Mutex mu_;
  std::map<std::string, Family> families_ GUARDED_BY(mu_);
  std::vector<std::function<void()>> collectors_ GUARDED_BY(mu_);
};

}  // namespace verdict
