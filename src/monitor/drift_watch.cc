#include "monitor/drift_watch.h"

#include <spdlog/spdlog.h>

#include <utility>

namespace verdict::monitor {

DriftWatch::DriftWatch(const DriftOptions& options, std::span<const std::string_view> feature_names,
                       ReferenceLoader loader, MetricsRegistry& metrics, const Clock& clock,
                       DriftRecorder* recorder)
    : options_(options),
      feature_names_(feature_names),
      loader_(std::move(loader)),
      metrics_(metrics),
      clock_(clock),
      recorder_(recorder) {}

Result<DriftMonitor*> DriftWatch::Add(std::string_view scope, std::string_view name,
                                      std::string_view version) {
  const size_t n = size_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    if (entries_[i].name == name && entries_[i].version == version && entries_[i].scope == scope) {
      return entries_[i].monitor.get();
    }
  }
  size_t in_scope = 0;
  for (size_t i = 0; i < n; ++i) in_scope += entries_[i].scope == scope ? 1 : 0;
  if (in_scope == kMaxVersions || n == kMaxMonitors) {
    if (!warned_full_) {
      spdlog::warn("drift: {} model versions watched already; {} v{} is not watched", in_scope,
                   name, version);
      warned_full_ = true;
    }
    return nullptr;
  }
  Entry& entry = entries_[n];
  entry.scope = std::string(scope);
  entry.name = std::string(name);
  entry.version = std::string(version);
  // Whatever happens, the version is recorded, so a missing or bad reference is looked up once.
  Status status = Status::Ok();
  auto reference = loader_(scope, name, version);
  if (!reference.ok()) {
    status = reference.status();
  } else if (reference->has_value()) {
    auto monitor = DriftMonitor::Create(options_, std::move(**reference), feature_names_,
                                        entry.name, entry.version, metrics_, clock_, entry.scope);
    // A freeze an earlier run left in force holds from the first decision on.
    if (monitor.ok()) status = (*monitor)->AttachRecorder(recorder_);
    if (monitor.ok() && status.ok()) {
      entry.monitor = std::move(monitor).value();
      entry.monitor->Start();
      spdlog::info("drift: watching {} features of {} v{}", entry.monitor->feature_names().size(),
                   name, version);
    } else if (!monitor.ok()) {
      status = monitor.status();
    }
  } else {
    spdlog::info("drift: {} v{} has no reference.json; not watched", name, version);
  }
  size_.store(n + 1, std::memory_order_release);
  if (!status.ok()) {
    spdlog::warn("drift: {} v{} is not watched: {}", name, version, status.message());
    return status;
  }
  return entry.monitor.get();
}

Status DriftWatch::Watch(std::string_view name, std::string_view version) {
  MutexLock lock(mu_);
  auto added = Add(std::string_view(), name, version);
  return added.ok() ? Status::Ok() : added.status();
}

DriftMonitor* DriftWatch::For(std::string_view scope, std::string_view name,
                              std::string_view version) {
  const size_t n = size_.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = entries_[i];
    if (e.version == version && e.name == name && e.scope == scope) return e.monitor.get();
  }
  MutexLock lock(mu_);
  auto added = Add(scope, name, version);
  return added.ok() ? *added : nullptr;
}

std::vector<DriftMonitor*> DriftWatch::monitors() const {
  std::vector<DriftMonitor*> out;
  const size_t n = size_.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    if (entries_[i].monitor) out.push_back(entries_[i].monitor.get());
  }
  return out;
}

}  // namespace verdict::monitor
