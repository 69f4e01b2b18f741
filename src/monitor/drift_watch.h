// DriftWatch: one DriftMonitor per model version that decides, per scope (the deployment's
// models, scope "", or one tenant's own, scope = the tenant), created (and started) the first
// time that version asks for it, with its reference from a loader, so drift is watched for
// whichever model the lifecycle activates and one tenant's traffic never moves (or freezes)
// another tenant's model. Owns the monitors until destruction; thread-safe,
// and For is lock-free once a version has been looked up.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "monitor/drift_monitor.h"
#include "monitor/drift_options.h"
#include "monitor/drift_recorder.h"
#include "monitor/reference_distribution.h"

namespace verdict::monitor {

class DriftWatch {
 public:
  // The most model versions watched at once (each monitor has a thread); later versions are
  // not watched, with a warning.
  static constexpr size_t kMaxVersions = 8;
  // Per scope: one tenant activating many models uses up its own share, never another
  // tenant's or the deployment's (I7). The total bounds the monitor threads.
  static constexpr size_t kMaxMonitors = 64;

  // A version's reference: nullopt when it has none (not watched), an error when it is bad.
  // `scope` says whose registry to look in: "" for the deployment's, else the tenant's.
  using ReferenceLoader = std::function<Result<std::optional<ReferenceDistribution>>(
      std::string_view scope, std::string_view name, std::string_view version)>;

  // `feature_names` (the engine's feature vector order), `metrics`, `clock` and `recorder`
  // (null: nothing is put on record, no freeze is kept) must outlive the watch.
  DriftWatch(const DriftOptions& options, std::span<const std::string_view> feature_names,
             ReferenceLoader loader, MetricsRegistry& metrics, const Clock& clock,
             DriftRecorder* recorder = nullptr);

  // Looks the version up now and reports a bad reference (start-up uses it for the configured
  // model, so that a broken reference.json stops the engine rather than drift watch).
  Status Watch(std::string_view name, std::string_view version) EXCLUDES(mu_);
  // The monitor of this version in this scope, made on first use; null when the version has
  // no reference, its reference failed to load (logged once) or kMaxVersions (in its scope) or
  // kMaxMonitors (in all) are watched
  // already. The two-argument form is the deployment's scope.
  DriftMonitor* For(std::string_view scope, std::string_view name, std::string_view version)
      EXCLUDES(mu_);
  DriftMonitor* For(std::string_view name, std::string_view version) {
    return For(std::string_view(), name, version);
  }
  // Every monitor made so far, oldest first.
  std::vector<DriftMonitor*> monitors() const;

 private:
  struct Entry {
    std::string scope;
    std::string name;
    std::string version;
    std::unique_ptr<DriftMonitor> monitor;  // null: not watched
  };
  Result<DriftMonitor*> Add(std::string_view scope, std::string_view name, std::string_view version)
      REQUIRES(mu_);

  const DriftOptions options_;
  const std::span<const std::string_view> feature_names_;
  const ReferenceLoader loader_;
  MetricsRegistry& metrics_;
  const Clock& clock_;
  DriftRecorder* const recorder_;
  // Append-only: an entry is written under mu_, complete before `size_` publishes it
  // (release/acquire), and never changed afterwards. Not GUARDED_BY: For and monitors read
  // published entries without the lock, which the analysis cannot express.
  std::array<Entry, kMaxMonitors> entries_;
  std::atomic<size_t> size_{0};
  // Serializes Add. Held while the reference loader runs (it may take the registry's locks)
  // and while a new DriftMonitor is made and started.
  mutable Mutex mu_;
  bool warned_full_ GUARDED_BY(mu_) = false;
};

}  // namespace verdict::monitor
