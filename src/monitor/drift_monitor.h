// DriftMonitor: live drift of one model version's features and score against its reference.
// Workers call Observe per decision (thread-local bin counters, no locks, no allocation);
// the monitor thread (Start) or a test (Tick, with a manual clock) merges them every second
// into a ring of 1 s buckets, computes the statistics per window and sets the level once it is
// sustained: L1 log + snapshot, L2 retrain hook, L3 alert (and, if configured, freeze until
// ClearFreeze). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "monitor/drift_options.h"
#include "monitor/drift_recorder.h"
#include "monitor/drift_statistics.h"
#include "monitor/reference_distribution.h"
#include "monitor/retrain_hook.h"

namespace verdict::monitor {

// One window's statistics for every tracked variable.
struct WindowReport {
  std::string name;        // "60s", "300s", "last_1000"
  int64_t span_s = 0;      // seconds of history it covers
  uint64_t decisions = 0;  // scored decisions in it
  // Decisions left out: their sender was known for less than min_account_history_days.
  uint64_t new_accounts = 0;
  bool judged = false;     // decisions >= min_count: counts towards the level
  double drift_score = 0;  // combined score on the score distribution
  DriftStatistics score;
  std::vector<DriftStatistics> features;  // in the order of DriftMonitor::feature_names()
};

struct DriftEvent {
  int64_t time_us = 0;
  int level = 0;
  double drift_score = 0;
  std::string what;  // "level 2: retrain hook started", "frozen", "cleared by admin"...
};

struct DriftAlert {
  std::string kind;  // "drift_freeze", "level_3" (not frozen) or "escalation"
  int64_t since_us = 0;
  double drift_score = 0;
  std::string message;
};

// Everything GET /v1/drift shows.
struct DriftSnapshot {
  std::string model_name;
  std::string model_version;
  int64_t evaluated_at_us = 0;
  int level = 0;  // 0: no drift, 1..3
  double drift_score = 0;
  bool frozen = false;
  std::vector<WindowReport> windows;
  std::vector<DriftAlert> alerts;  // active until cleared; at most kMaxEvents escalations
  std::vector<DriftEvent> events;  // most recent last, at most kMaxEvents
  // The windows at the moment the level last rose (L1's snapshot).
  std::vector<WindowReport> level_snapshot;
  int64_t level_snapshot_us = 0;
  RetrainHook::Report retrain;
};

class DriftMonitor {
 public:
  static constexpr size_t kMaxEvents = 64;
  // Counter layout: variable v (the tracked features, then the score) owns the kStride
  // counters from v * kStride: its bins first, its missing count in slot kMissingSlot. Its
  // interior bin boundaries are at padded_edges_[v * kStride ...], padded with +inf to
  // kPaddedEdges slots for the branch-free searches of bin_search.h.
  static constexpr size_t kStride = 32;
  static constexpr size_t kMissingSlot = 31;
  static_assert(kMaxReferenceBins < kMissingSlot);

  // `feature_names` is the engine's feature vector order; the reference's features are
  // matched by name (features the reference lacks are not tracked; reference features the
  // engine lacks are an error).
  static Result<std::unique_ptr<DriftMonitor>> Create(
      const DriftOptions& options, ReferenceDistribution reference,
      std::span<const std::string_view> feature_names, std::string model_name,
      std::string model_version, MetricsRegistry& metrics, const Clock& clock,
      std::string tenant = {});
  ~DriftMonitor();

  // Puts alerts and freezes on record with `recorder` (which must outlive the monitor), and
  // takes up the freeze it finds in force there, if any. Call once, before Start and Tick.
  Status AttachRecorder(DriftRecorder* recorder) EXCLUDES(record_mu_, mu_);

  // Per decision, on any thread: the full feature vector (engine order) and the score, or
  // NaN when the model did not score. Lock-free after the thread's first call. A decision
  // whose sender is newer than min_account_history_days is only counted as such.
  void Observe(std::span<const double> features, double score);

  // Runs Tick every evaluate_interval_ms on a thread of its own until destruction.
  void Start();
  // Merges what workers counted into the bucket of `now_us`, evaluates every window and acts
  // on the level. Called by the monitor thread, or directly by tests.
  void Tick(int64_t now_us) EXCLUDES(record_mu_, mu_);

  // True while a freeze holds: the engine must decide on the fallback path.
  bool frozen() const { return frozen_.load(std::memory_order_acquire); }
  // An operator's clear: unfreezes, drops alerts and the windows' history (later levels are
  // judged on data seen after the clear). `who` goes into the event log. Fails, leaving the
  // freeze in force, when the recorder cannot drop the kept freeze.
  Status ClearFreeze(std::string_view who, int64_t now_us) EXCLUDES(record_mu_, mu_);
  Status ClearFreeze(std::string_view who) { return ClearFreeze(who, clock_.NowMicros()); }

  // Tests and benchmarks: count with the portable bin search even where AVX2 is available
  // (both give the same counts). Call before the first Observe.
  void UsePortableSearchForTesting() { avx2_ = false; }

  DriftSnapshot Snapshot() const EXCLUDES(mu_);
  const std::vector<std::string>& feature_names() const { return names_; }
  const std::string& model_name() const { return model_name_; }
  const std::string& model_version() const { return model_version_; }
  // The tenant whose own model this monitor watches (its metrics carry a tenant label); empty
  // for the deployment's model, shared by every tenant that uses it.
  const std::string& tenant() const { return tenant_; }
  const DriftOptions& options() const { return options_; }
  const ReferenceDistribution& reference() const { return reference_; }

 private:
  struct Shard;
  DriftMonitor(const DriftOptions& options, ReferenceDistribution reference, std::string name,
               std::string version, MetricsRegistry& metrics, const Clock& clock,
               std::string tenant);
  Shard* ShardForThisThread() EXCLUDES(shards_mu_);
  void Merge(int64_t now_us) REQUIRES(mu_) EXCLUDES(shards_mu_);
  std::vector<WindowReport> Evaluate(int64_t now_us) const REQUIRES(mu_);
  // One evaluation's level and combined score.
  struct Judgement {
    int level = 0;
    double score = 0;
  };
  // The level and score the evaluations have sustained (the least over escalate_after_windows
  // of them), given the current one.
  Judgement Sustained(int64_t now_us, Judgement current) REQUIRES(mu_);
  // Acts on the windows; what must go on record is added to `to_record`.
  void Act(int64_t now_us, std::vector<WindowReport> windows, std::vector<DriftRecord>* to_record)
      REQUIRES(mu_);
  void RaiseLevel3(int64_t now_us, double score, std::vector<DriftRecord>* to_record) REQUIRES(mu_);
  void AddAlert(DriftAlert alert) REQUIRES(mu_);
  DriftSubject subject() const { return {tenant_, model_name_, model_version_}; }
  void AddEvent(int64_t now_us, int level, double score, std::string what) REQUIRES(mu_);
  void Run() EXCLUDES(run_mu_, mu_);

  const DriftOptions options_;
  const ReferenceDistribution reference_;
  const std::string model_name_;
  const std::string model_version_;
  const std::string tenant_;
  const Clock& clock_;
  const uint64_t instance_id_;

  std::vector<std::string> names_;
  std::vector<uint32_t> source_index_;  // feature vector index of tracked feature i
  std::vector<uint32_t> bins_;
  std::vector<double> padded_edges_;
  uint32_t counters_ = 0;
  // Feature vector index of kAccountHistoryFeature; unused when min_account_history_days is 0.
  uint32_t history_index_ = 0;

  // Held while Tick evaluates and puts its alerts on record, and while ClearFreeze runs: a
  // clear never comes between a freeze and its record, so no cleared freeze is kept.
  Mutex record_mu_ ACQUIRED_BEFORE(mu_);
  DriftRecorder* recorder_ = nullptr;  // set before the monitor runs; null: nothing recorded
  // Monitor-thread state. Tick holds it while Merge takes shards_mu_.
  mutable Mutex mu_ ACQUIRED_BEFORE(shards_mu_) ACQUIRED_AFTER(record_mu_);
  // The workers' shards (a worker adds its own on its first Observe; Merge reads them all).
  Mutex shards_mu_ ACQUIRED_AFTER(mu_);
  std::vector<std::unique_ptr<Shard>> shards_ GUARDED_BY(shards_mu_);

  struct Bucket {
    int64_t second = 0;
    std::vector<uint64_t> counts;
    uint64_t new_accounts = 0;
  };
  std::deque<Bucket> buckets_ GUARDED_BY(mu_);  // oldest first
  int64_t history_s_ GUARDED_BY(mu_) = 0;
  DriftSnapshot snapshot_ GUARDED_BY(mu_);
  int last_level_ GUARDED_BY(mu_) = 0;
  // The evaluations at the ends of the last escalate_after_windows - 1 periods
  // (a period is the longest time window), oldest first, and when the current period ends.
  std::deque<Judgement> period_judgements_ GUARDED_BY(mu_);
  int64_t period_end_s_ GUARDED_BY(mu_) = INT64_MIN;
  int64_t last_retrain_us_ GUARDED_BY(mu_) = INT64_MIN;
  // When the score last rose past escalation_first.
  int64_t escalation_armed_us_ GUARDED_BY(mu_) = INT64_MIN;
  bool above_first_ GUARDED_BY(mu_) = false;
  bool above_second_ GUARDED_BY(mu_) = false;
  std::atomic<bool> frozen_{false};
  RetrainHook hook_;
  bool avx2_;  // PaddedBinAvx2 rather than PaddedBinPortable

  Gauge* score_gauge_;
  Gauge* level_gauge_;
  Gauge* frozen_gauge_;
  Counter* alerts_total_;
  std::vector<Gauge*> window_score_gauges_;
  std::vector<Gauge*> feature_psi_gauges_;  // longest time window

  Mutex run_mu_;  // never held with mu_ (Run releases it around Tick)
  CondVar run_cv_;
  bool stopping_ GUARDED_BY(run_mu_) = false;
  std::thread thread_;
};

}  // namespace verdict::monitor
