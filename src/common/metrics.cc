#include "common/metrics.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace verdict {
namespace {

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderLabels(const MetricLabels& labels) {
  std::string out;
  for (const auto& [key, value] : labels) {
    if (!out.empty()) out += ',';
    out += key + "=\"" + EscapeLabelValue(value) + "\"";
  }
  return out;
}

// Shortest text that reads back to the same double ("0.001", "1e-05", "42").
std::string FormatNumber(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

std::string WithLabels(const std::string& name, const std::string& labels,
                       const std::string& extra = {}) {
  std::string all = labels;
  if (!extra.empty()) all += (all.empty() ? "" : ",") + extra;
  return all.empty() ? name : name + "{" + all + "}";
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0);
}

void Histogram::Observe(double v) {
  size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

std::vector<double> LatencyBucketsSeconds() {
  return {10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3,
          10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1,    2.5,    10};
}

MetricsRegistry::Family& MetricsRegistry::FamilyFor(const std::string& name, Type type,
                                                    const std::string& help) {
  auto [it, inserted] = families_.try_emplace(name);
  if (inserted) {
    it->second.type = type;
    it->second.help = help;
  } else if (it->second.type != type) {
    std::fprintf(stderr, "metric %s registered with two types\n", name.c_str());
    std::abort();
  }
  return it->second;
}

Counter* MetricsRegistry::GetCounter(const std::string& name, const std::string& help,
                                     const MetricLabels& labels) {
  MutexLock lock(mu_);
  auto& slot = FamilyFor(name, Type::kCounter, help).counters[RenderLabels(labels)];
  if (!slot) slot = std::make_unique<Counter>();
  return slot.get();
}

Gauge* MetricsRegistry::GetGauge(const std::string& name, const std::string& help,
                                 const MetricLabels& labels) {
  MutexLock lock(mu_);
  auto& slot = FamilyFor(name, Type::kGauge, help).gauges[RenderLabels(labels)];
  if (!slot) slot = std::make_unique<Gauge>();
  return slot.get();
}

Histogram* MetricsRegistry::GetHistogram(const std::string& name, const std::string& help,
                                         const std::vector<double>& upper_bounds,
                                         const MetricLabels& labels) {
  MutexLock lock(mu_);
  Family& family = FamilyFor(name, Type::kHistogram, help);
  if (family.histograms.empty()) {
    family.bounds = upper_bounds;
  } else if (family.bounds != upper_bounds) {
    std::fprintf(stderr, "histogram %s registered with two bucket layouts\n", name.c_str());
    std::abort();
  }
  auto& slot = family.histograms[RenderLabels(labels)];
  if (!slot) slot = std::make_unique<Histogram>(upper_bounds);
  return slot.get();
}

namespace {

constexpr std::string_view kTenantKey = "tenant=\"";

// Whether a rendered label set (`a="x",tenant="y"`) may be shown to the tenant whose own label
// renders as `own` (`tenant="y"`; nullptr: to anyone). A value's quotes are escaped, so
// `tenant="` at the start or after a comma is always a label's own key.
bool Visible(const std::string& labels, const std::string* own) {
  if (own == nullptr) return true;
  for (size_t at = labels.find(kTenantKey); at != std::string::npos;
       at = labels.find(kTenantKey, at + 1)) {
    if (at != 0 && labels[at - 1] != ',') continue;
    const size_t end = at + own->size();
    return labels.compare(at, own->size(), *own) == 0 &&
           (end == labels.size() || labels[end] == ',');
  }
  return true;  // no tenant label: an engine-wide series
}

}  // namespace

void MetricsRegistry::AddCollector(std::function<void()> collect) {
  MutexLock lock(mu_);
  collectors_.push_back(std::move(collect));
}

std::string MetricsRegistry::RenderPrometheus(const std::optional<std::string>& only_tenant) const {
  const std::string own_label =
      only_tenant ? std::string(kTenantKey) + EscapeLabelValue(*only_tenant) + "\"" : "";
  const std::string* own = only_tenant ? &own_label : nullptr;
  std::vector<std::function<void()>> collectors;
  {
    MutexLock lock(mu_);
    collectors = collectors_;
  }
  for (const std::function<void()>& collect : collectors) collect();
  MutexLock lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) {
    static const char* const kTypeNames[] = {"counter", "gauge", "histogram"};
    out += "# HELP " + name + " " + family.help + "\n";
    out += "# TYPE " + name + " " + kTypeNames[static_cast<int>(family.type)] + "\n";
    for (const auto& [labels, counter] : family.counters) {
      if (!Visible(labels, own)) continue;
      out += WithLabels(name, labels) + " " + std::to_string(counter->value()) + "\n";
    }
    for (const auto& [labels, gauge] : family.gauges) {
      if (!Visible(labels, own)) continue;
      out += WithLabels(name, labels) + " " + FormatNumber(gauge->value()) + "\n";
    }
    for (const auto& [labels, histogram] : family.histograms) {
      if (!Visible(labels, own)) continue;
      uint64_t cumulative = 0;
      const auto& bounds = histogram->upper_bounds();
      for (size_t i = 0; i <= bounds.size(); ++i) {
        cumulative += histogram->bucket_count(i);
        std::string le = i < bounds.size() ? FormatNumber(bounds[i]) : "+Inf";
        out += WithLabels(name + "_bucket", labels, "le=\"" + le + "\"") + " " +
               FormatNumber(static_cast<double>(cumulative)) + "\n";
      }
      out += WithLabels(name + "_sum", labels) + " " + FormatNumber(histogram->sum()) + "\n";
      out += WithLabels(name + "_count", labels) + " " +
             FormatNumber(static_cast<double>(histogram->count())) + "\n";
    }
  }
  return out;
}

}  // namespace verdict
