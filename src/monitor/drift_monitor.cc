#include "monitor/drift_monitor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <thread>
#include <unordered_map>
#include <utility>

#include "common/json_writer.h"
#include "monitor/bin_search.h"

namespace verdict::monitor {

// One thread's counters. Only that thread writes `counts` (relaxed load + store, no locked
// read-modify-write); the monitor thread reads them and keeps what it has merged in `merged`.
struct DriftMonitor::Shard {
  explicit Shard(size_t n) : counts(new std::atomic<uint64_t>[n]), merged(n, 0) {
    for (size_t i = 0; i < n; ++i) counts[i].store(0, std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<uint64_t>[]> counts;
  std::vector<uint64_t> merged;
  // Decisions left out for a sender newer than min_account_history_days, and of them merged.
  std::atomic<uint64_t> new_accounts{0};
  uint64_t merged_new_accounts = 0;
  std::thread::id owner;
};

namespace {

std::atomic<uint64_t> next_instance_id{1};

// A few (monitor, shard) pairs per thread, so that a thread serving a primary and a canary
// model's monitors does not take the lock on every call.
struct ShardCacheEntry {
  uint64_t instance = 0;
  void* shard = nullptr;
};
thread_local std::array<ShardCacheEntry, 4> shard_cache{};
thread_local size_t shard_cache_next = 0;

inline void Bump(std::atomic<uint64_t>& counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

std::string WindowName(int64_t seconds) { return std::to_string(seconds) + "s"; }

}  // namespace

Result<std::unique_ptr<DriftMonitor>> DriftMonitor::Create(
    const DriftOptions& options, ReferenceDistribution reference,
    std::span<const std::string_view> feature_names, std::string model_name,
    std::string model_version, MetricsRegistry& metrics, const Clock& clock, std::string tenant) {
  VERDICT_RETURN_IF_ERROR(ValidateDriftOptions(options));
  VERDICT_ASSIGN_OR_RETURN(std::vector<uint32_t> source,
                           ResolveReferenceFeatures(reference, feature_names));
  uint32_t history_index = 0;
  if (options.min_account_history_days > 0) {
    const auto found =
        std::find(feature_names.begin(), feature_names.end(), kAccountHistoryFeature);
    if (found == feature_names.end()) {
      return InvalidArgument("needs the feature " + std::string(kAccountHistoryFeature) +
                                 ", which this engine does not compute (set it to 0)",
                             "drift.min_account_history_days");
    }
    history_index = static_cast<uint32_t>(found - feature_names.begin());
  }
  std::unique_ptr<DriftMonitor> monitor(
      new DriftMonitor(options, std::move(reference), std::move(model_name),
                       std::move(model_version), metrics, clock, std::move(tenant)));
  monitor->source_index_ = std::move(source);
  monitor->history_index_ = history_index;
  return monitor;
}

DriftMonitor::DriftMonitor(const DriftOptions& options, ReferenceDistribution reference,
                           std::string name, std::string version, MetricsRegistry& metrics,
                           const Clock& clock, std::string tenant)
    : options_(options),
      reference_(std::move(reference)),
      model_name_(std::move(name)),
      model_version_(std::move(version)),
      tenant_(std::move(tenant)),
      clock_(clock),
      instance_id_(next_instance_id.fetch_add(1)),
      hook_(options.retrain_command, options.retrain_webhook),
      avx2_(CpuHasAvx2()) {
  const size_t variables = reference_.features.size() + 1;
  padded_edges_.assign(variables * kStride, std::numeric_limits<double>::infinity());
  for (size_t v = 0; v < variables; ++v) {
    const VariableReference& ref = v + 1 < variables ? reference_.features[v] : reference_.score;
    if (v + 1 < variables) names_.push_back(ref.name);
    bins_.push_back(static_cast<uint32_t>(ref.bins()));
    for (size_t i = 1; i + 1 < ref.edges.size(); ++i) {
      padded_edges_[v * kStride + i - 1] = ref.edges[i];
    }
  }
  counters_ = static_cast<uint32_t>(variables * kStride);
  for (int64_t w : options_.windows_s) history_s_ = std::max(history_s_, w);

  MetricLabels model_labels = {{"model", model_name_}, {"version", model_version_}};
  // A tenant's own model: its own series, even where another tenant has a model of the same
  // name and version.
  if (!tenant_.empty()) model_labels.emplace_back("tenant", tenant_);
  score_gauge_ = metrics.GetGauge("verdict_drift_score",
                                  "Combined drift score of the model score (largest judged window)",
                                  model_labels);
  level_gauge_ = metrics.GetGauge("verdict_drift_level", "Drift level 0..3", model_labels);
  frozen_gauge_ = metrics.GetGauge("verdict_drift_frozen",
                                   "1 while drift level 3 freezes the model", model_labels);
  alerts_total_ = metrics.GetCounter("verdict_drift_alerts_total",
                                     "Drift alerts raised (freeze and escalation)", model_labels);
  auto window_gauge = [&](const std::string& window) {
    MetricLabels labels = model_labels;
    labels.emplace_back("window", window);
    window_score_gauges_.push_back(
        metrics.GetGauge("verdict_drift_window_score",
                         "Combined drift score of the model score per window", labels));
  };
  for (int64_t w : options_.windows_s) window_gauge(WindowName(w));
  for (uint64_t n : options_.count_windows) window_gauge("last_" + std::to_string(n));
  for (const std::string& feature : names_) {
    MetricLabels labels = model_labels;
    labels.emplace_back("feature", feature);
    feature_psi_gauges_.push_back(metrics.GetGauge(
        "verdict_drift_feature_psi", "PSI of each feature over the longest time window", labels));
  }
  snapshot_.model_name = model_name_;
  snapshot_.model_version = model_version_;
}

DriftMonitor::~DriftMonitor() {
  {
    MutexLock lock(run_mu_);
    stopping_ = true;
  }
  run_cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

DriftMonitor::Shard* DriftMonitor::ShardForThisThread() {
  for (const ShardCacheEntry& e : shard_cache) {
    if (e.instance == instance_id_) return static_cast<Shard*>(e.shard);
  }
  Shard* shard = nullptr;
  {
    MutexLock lock(shards_mu_);
    const std::thread::id me = std::this_thread::get_id();
    for (const auto& s : shards_) {
      if (s->owner == me) shard = s.get();
    }
    if (shard == nullptr) {
      shards_.push_back(std::make_unique<Shard>(counters_));
      shard = shards_.back().get();
      shard->owner = me;
    }
  }
  shard_cache[shard_cache_next] = {instance_id_, shard};
  shard_cache_next = (shard_cache_next + 1) % shard_cache.size();
  return shard;
}

namespace {

// The per-decision loop, once per bin search: a macro rather than a template, since a
// function compiled for AVX2 cannot share a default-target body that inlines an AVX2 search.
inline double AsIs(double score) { return score; }

struct ObserveArgs {
  std::atomic<uint64_t>* counts;
  const double* edges;
  const uint32_t* source;
  size_t tracked;
  const double* values;
  size_t available;
  double score;
};

// The counter slot of one variable's value. +inf is clamped to the largest double (the
// padding is +inf); NaN, which compares false everywhere, goes to the missing slot. Features
// are first rounded to float (ROUND): the model sees them so, and `verdict train` builds the
// reference from those values, whose edges are floats; the score is compared as it is.
#define VERDICT_DRIFT_SLOT(OUT, SEARCH, ROUND, v, value)                                 \
  do {                                                                                   \
    const double value_ = (value);                                                       \
    const double x_ = std::min(ROUND(value_), std::numeric_limits<double>::max());       \
    const size_t idx_ = SEARCH(edges + (v)*DriftMonitor::kStride, x_);                   \
    OUT = static_cast<uint32_t>((v)*DriftMonitor::kStride +                              \
                                (value_ == value_ ? idx_ : DriftMonitor::kMissingSlot)); \
  } while (false)

// Two passes over chunks of variables: every search first (independent of each other, so the
// CPU overlaps them), then the counter increments, which would otherwise sit between the
// searches and stall them. Copies every argument to a local first: the counter stores are
// atomics, so the compiler would otherwise reload each one from memory after every store.
#define VERDICT_DRIFT_OBSERVE_LOOP(SEARCH)                                                       \
  std::atomic<uint64_t>* const counts = a.counts;                                                \
  const double* const edges = a.edges;                                                           \
  const uint32_t* const source = a.source;                                                       \
  const double* const values = a.values;                                                         \
  const size_t tracked = a.tracked;                                                              \
  const size_t available = a.available;                                                          \
  constexpr size_t kChunk = 64;                                                                  \
  uint32_t slots[kChunk];                                                                        \
  for (size_t begin = 0; begin < tracked; begin += kChunk) {                                     \
    const size_t end = std::min(tracked, begin + kChunk);                                        \
    for (size_t i = begin; i < end; ++i) {                                                       \
      const uint32_t s = source[i];                                                              \
      const double value = s < available ? values[s] : std::numeric_limits<double>::quiet_NaN(); \
      VERDICT_DRIFT_SLOT(slots[i - begin], SEARCH, FeatureAsModelSees, i, value);                \
    }                                                                                            \
    for (size_t i = 0; i < end - begin; ++i) Bump(counts[slots[i]]);                             \
  }                                                                                              \
  uint32_t score_slot;                                                                           \
  VERDICT_DRIFT_SLOT(score_slot, SEARCH, AsIs, tracked, a.score);                                \
  Bump(counts[score_slot])

void ObservePortable(const ObserveArgs& a) { VERDICT_DRIFT_OBSERVE_LOOP(PaddedBinPortable); }

#ifdef VERDICT_DRIFT_AVX2
// Compiled for AVX2 as a whole, so that PaddedBinAvx2 inlines into the loop.
__attribute__((target("avx2"))) void ObserveAvx2(const ObserveArgs& a) {
  VERDICT_DRIFT_OBSERVE_LOOP(PaddedBinAvx2);
}
#endif

#undef VERDICT_DRIFT_OBSERVE_LOOP
#undef VERDICT_DRIFT_SLOT

}  // namespace

void DriftMonitor::Observe(std::span<const double> features, double score) {
  Shard* const shard = ShardForThisThread();
  if (options_.min_account_history_days > 0) {
    // NaN (not computed) counts as no history.
    const double days = history_index_ < features.size() ? features[history_index_]
                                                         : std::numeric_limits<double>::quiet_NaN();
    if (!(days >= options_.min_account_history_days)) return Bump(shard->new_accounts);
  }
  const ObserveArgs args{shard->counts.get(),
                         padded_edges_.data(),
                         source_index_.data(),
                         source_index_.size(),
                         features.data(),
                         features.size(),
                         score};
#ifdef VERDICT_DRIFT_AVX2
  if (avx2_) return ObserveAvx2(args);
#endif
  ObservePortable(args);
}

void DriftMonitor::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void DriftMonitor::Run() {
  MutexLock lock(run_mu_);
  while (!stopping_) {
    lock.Unlock();
    Tick(clock_.NowMicros());
    lock.Lock();
    // Until the interval is over or the destructor stops the thread (spurious wakes wait on).
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.evaluate_interval_ms);
    while (!stopping_ && run_cv_.WaitUntil(run_mu_, until)) {
    }
  }
}

void DriftMonitor::Merge(int64_t now_us) {
  const int64_t second = now_us / kMicrosPerSecond;
  if (buckets_.empty() || buckets_.back().second != second) {
    buckets_.push_back(Bucket{second, std::vector<uint64_t>(counters_, 0)});
  }
  Bucket& merged_into = buckets_.back();
  std::vector<uint64_t>& bucket = merged_into.counts;
  {
    MutexLock lock(shards_mu_);
    for (const auto& shard : shards_) {
      const uint64_t new_accounts = shard->new_accounts.load(std::memory_order_relaxed);
      merged_into.new_accounts += new_accounts - shard->merged_new_accounts;
      shard->merged_new_accounts = new_accounts;
      for (uint32_t i = 0; i < counters_; ++i) {
        const uint64_t now = shard->counts[i].load(std::memory_order_relaxed);
        bucket[i] += now - shard->merged[i];
        shard->merged[i] = now;
      }
    }
  }
  while (!buckets_.empty() && buckets_.front().second <= second - history_s_) {
    buckets_.pop_front();
  }
}

std::vector<WindowReport> DriftMonitor::Evaluate(int64_t now_us) const {
  const int64_t second = now_us / kMicrosPerSecond;
  const size_t tracked = names_.size();
  auto report = [&](std::string name, const std::vector<uint64_t>& sum, int64_t span_s,
                    uint64_t new_accounts) {
    WindowReport w;
    w.name = std::move(name);
    w.span_s = span_s;
    w.new_accounts = new_accounts;
    auto slice = [&](size_t v) {
      return std::span<const uint64_t>(sum.data() + v * kStride, bins_[v]);
    };
    for (size_t v = 0; v < tracked; ++v) {
      w.features.push_back(
          CompareBinned(reference_.features[v], slice(v), sum[v * kStride + kMissingSlot]));
    }
    w.score =
        CompareBinned(reference_.score, slice(tracked), sum[tracked * kStride + kMissingSlot]);
    w.decisions = w.score.count + w.score.missing;
    w.judged = w.score.count >= options_.min_count;
    w.drift_score = CombinedDriftScore(w.score, options_.weights);
    return w;
  };
  std::vector<WindowReport> windows;
  for (int64_t span : options_.windows_s) {
    std::vector<uint64_t> sum(counters_, 0);
    uint64_t new_accounts = 0;
    for (const Bucket& b : buckets_) {
      if (b.second <= second - span) continue;
      for (uint32_t i = 0; i < counters_; ++i) sum[i] += b.counts[i];
      new_accounts += b.new_accounts;
    }
    windows.push_back(report(WindowName(span), sum, span, new_accounts));
  }
  const size_t score_base = tracked * kStride;
  for (uint64_t n : options_.count_windows) {
    std::vector<uint64_t> sum(counters_, 0);
    uint64_t decisions = 0;
    uint64_t new_accounts = 0;
    int64_t oldest = second;
    for (auto it = buckets_.rbegin(); it != buckets_.rend() && decisions < n; ++it) {
      for (uint32_t i = 0; i < counters_; ++i) sum[i] += it->counts[i];
      new_accounts += it->new_accounts;
      decisions = sum[score_base + kMissingSlot];
      for (uint32_t b = 0; b < bins_[tracked]; ++b) decisions += sum[score_base + b];
      oldest = it->second;
    }
    windows.push_back(report("last_" + std::to_string(n), sum, second - oldest + 1, new_accounts));
  }
  return windows;
}

void DriftMonitor::AddEvent(int64_t now_us, int level, double score, std::string what) {
  spdlog::log(level >= 2 ? spdlog::level::warn : spdlog::level::info,
              "drift {} v{}: {} (level {}, score {:.4f})", model_name_, model_version_, what, level,
              score);
  snapshot_.events.push_back({now_us, level, score, std::move(what)});
  if (snapshot_.events.size() > kMaxEvents) snapshot_.events.erase(snapshot_.events.begin());
}

DriftMonitor::Judgement DriftMonitor::Sustained(int64_t now_us, Judgement current) {
  const size_t earlier = static_cast<size_t>(options_.escalate_after_windows - 1);
  if (earlier == 0) return current;
  Judgement sustained = period_judgements_.size() < earlier ? Judgement{} : current;
  for (const Judgement& j : period_judgements_) {
    sustained.level = std::min(sustained.level, j.level);
    sustained.score = std::min(sustained.score, j.score);
  }
  // The evaluation that ends a period is kept; a period is the longest time window, so the
  // kept evaluations' time windows do not overlap.
  const int64_t second = now_us / kMicrosPerSecond;
  if (period_end_s_ == INT64_MIN) {
    period_end_s_ = second + history_s_;
  } else if (second >= period_end_s_) {
    period_judgements_.push_back(current);
    if (period_judgements_.size() > earlier) period_judgements_.pop_front();
    period_end_s_ = second + history_s_;
  }
  return sustained;
}

void DriftMonitor::AddAlert(DriftAlert alert) {
  // Active alerts stay until an operator clears them; level-3 alerts and escalations can
  // repeat without end (a score flipping across a mark), so only the latest kMaxEvents are
  // kept. The freeze alert, at most one, is never dropped.
  if (snapshot_.alerts.size() >= kMaxEvents) {
    const auto oldest = std::find_if(snapshot_.alerts.begin(), snapshot_.alerts.end(),
                                     [](const DriftAlert& a) { return a.kind != "drift_freeze"; });
    if (oldest != snapshot_.alerts.end()) snapshot_.alerts.erase(oldest);
  }
  snapshot_.alerts.push_back(std::move(alert));
  alerts_total_->Increment();
}

void DriftMonitor::RaiseLevel3(int64_t now_us, double score, std::vector<DriftRecord>* to_record) {
  const std::string above = "drift score above " + std::to_string(options_.l3) + " for " +
                            std::to_string(options_.escalate_after_windows) + " windows";
  if (options_.freeze_model) {
    frozen_.store(true, std::memory_order_release);
    const std::string message = above + ": model frozen, deciding on the fallback path";
    AddAlert({"drift_freeze", now_us, score, message});
    AddEvent(now_us, 3, score, "frozen: every decision takes the fallback path");
    to_record->push_back({"drift.freeze", 3, score, now_us, message});
  } else {
    const std::string message =
        above + ": retrain the model ([drift] freeze_model = false: it keeps deciding)";
    AddAlert({"level_3", now_us, score, message});
    AddEvent(now_us, 3, score, "level 3 alert; the model keeps deciding");
    to_record->push_back({"drift.alert", 3, score, now_us, message});
  }
}

void DriftMonitor::Act(int64_t now_us, std::vector<WindowReport> windows,
                       std::vector<DriftRecord>* to_record) {
  double score = 0;
  bool feature_alert = false;
  size_t longest = 0;
  for (size_t i = 0; i < windows.size(); ++i) {
    const WindowReport& w = windows[i];
    if (i < options_.windows_s.size() && w.span_s >= windows[longest].span_s) longest = i;
    if (i < window_score_gauges_.size()) window_score_gauges_[i]->Set(w.drift_score);
    if (!w.judged) continue;
    score = std::max(score, w.drift_score);
    for (const DriftStatistics& f : w.features) {
      if (f.count >= options_.min_count && f.psi >= options_.psi_alert) feature_alert = true;
    }
  }
  if (!windows.empty()) {
    for (size_t f = 0; f < feature_psi_gauges_.size(); ++f) {
      feature_psi_gauges_[f]->Set(windows[longest].features[f].psi);
    }
  }
  const Judgement sustained =
      Sustained(now_us, {DriftLevel(score, feature_alert, options_), score});
  int level = sustained.level;

  if (level == 3 && last_level_ < 3 && !frozen()) RaiseLevel3(now_us, score, to_record);
  if (frozen()) level = 3;
  if (level != last_level_) {
    AddEvent(now_us, level, score,
             "level " + std::to_string(last_level_) + " -> " + std::to_string(level));
    if (level > last_level_ && level >= 1) {
      // The snapshot of the moment the level rose, kept until the next rise.
      snapshot_.level_snapshot = windows;
      snapshot_.level_snapshot_us = now_us;
    }
  }
  if (level >= 2 && hook_.configured() &&
      (last_retrain_us_ == INT64_MIN ||
       now_us - last_retrain_us_ >= options_.retrain_cooldown_s * kMicrosPerSecond)) {
    last_retrain_us_ = now_us;
    std::string body;
    JsonWriter w(body);
    w.BeginObject()
        .Key("model")
        .String(model_name_)
        .Key("version")
        .String(model_version_)
        .Key("level")
        .Int(level)
        .Key("drift_score")
        .Double(score)
        .Key("time_us")
        .Int(now_us)
        .EndObject();
    const Status status = hook_.Run(
        body, {"VERDICT_DRIFT_LEVEL=" + std::to_string(level),
               "VERDICT_DRIFT_SCORE=" + std::to_string(score), "VERDICT_MODEL=" + model_name_,
               "VERDICT_MODEL_VERSION=" + model_version_});
    AddEvent(now_us, level, score,
             status.ok() ? "retrain hook started" : "retrain hook failed: " + status.message());
  }

  // Escalation: past the first mark, then past the second within the window.
  // On the sustained score too: one window's jump is no escalation.
  if (sustained.score >= options_.escalation_first) {
    if (!above_first_) escalation_armed_us_ = now_us;
    above_first_ = true;
  } else {
    above_first_ = false;
  }
  const bool above_second = sustained.score >= options_.escalation_second;
  if (above_second && !above_second_ && escalation_armed_us_ != INT64_MIN &&
      now_us - escalation_armed_us_ <= options_.escalation_window_s * kMicrosPerSecond) {
    AddAlert({"escalation", now_us, score,
              "drift score rose past " + std::to_string(options_.escalation_first) + " and " +
                  std::to_string(options_.escalation_second) + " within " +
                  std::to_string(options_.escalation_window_s) + " s"});
    AddEvent(now_us, level, score, "escalation alert");
  }
  above_second_ = above_second;

  last_level_ = level;
  snapshot_.evaluated_at_us = now_us;
  snapshot_.level = level;
  snapshot_.drift_score = score;
  snapshot_.windows = std::move(windows);
  score_gauge_->Set(score);
  level_gauge_->Set(level);
  frozen_gauge_->Set(frozen() ? 1 : 0);
}

void DriftMonitor::Tick(int64_t now_us) {
  MutexLock record_lock(record_mu_);
  std::vector<DriftRecord> to_record;
  {
    MutexLock lock(mu_);
    Merge(now_us);
    Act(now_us, Evaluate(now_us), &to_record);
    hook_.Reap();
  }
  // Outside mu_ (GET /v1/drift is not kept waiting for the journal), inside record_mu_.
  for (const DriftRecord& record : to_record) {
    const Status recorded =
        recorder_ != nullptr ? recorder_->Record(subject(), record) : Status::Ok();
    if (!recorded.ok()) {
      spdlog::error("drift {} v{}: {} not recorded: {}", model_name_, model_version_, record.action,
                    recorded.message());
    }
  }
}

Status DriftMonitor::AttachRecorder(DriftRecorder* recorder) {
  MutexLock record_lock(record_mu_);
  recorder_ = recorder;
  if (recorder_ == nullptr) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(std::optional<PersistedFreeze> kept, recorder_->FindFreeze(subject()));
  if (!kept.has_value()) return Status::Ok();
  MutexLock lock(mu_);
  frozen_.store(true, std::memory_order_release);
  last_level_ = 3;
  snapshot_.level = 3;
  snapshot_.drift_score = kept->drift_score;
  snapshot_.alerts.push_back({"drift_freeze", kept->since_us, kept->drift_score,
                              "model frozen by drift before the restart, deciding on the "
                              "fallback path until an operator clears it"});
  AddEvent(clock_.NowMicros(), 3, kept->drift_score, "frozen since before the restart");
  frozen_gauge_->Set(1);
  level_gauge_->Set(3);
  return Status::Ok();
}

Status DriftMonitor::ClearFreeze(std::string_view who, int64_t now_us) {
  MutexLock record_lock(record_mu_);
  if (recorder_ != nullptr && frozen()) VERDICT_RETURN_IF_ERROR(recorder_->ForgetFreeze(subject()));
  MutexLock lock(mu_);
  frozen_.store(false, std::memory_order_release);
  period_judgements_.clear();
  period_end_s_ = INT64_MIN;
  snapshot_.alerts.clear();
  buckets_.clear();
  above_first_ = false;
  above_second_ = false;
  escalation_armed_us_ = INT64_MIN;
  AddEvent(now_us, 0, snapshot_.drift_score, "cleared by " + std::string(who));
  last_level_ = 0;
  snapshot_.level = 0;
  frozen_gauge_->Set(0);
  level_gauge_->Set(0);
  return Status::Ok();
}

DriftSnapshot DriftMonitor::Snapshot() const {
  MutexLock lock(mu_);
  DriftSnapshot copy = snapshot_;
  copy.frozen = frozen();
  copy.retrain = hook_.report();
  return copy;
}

int DriftLevel(double drift_score, bool feature_alert, const DriftOptions& options) {
  const int level = drift_score > options.l3    ? 3
                    : drift_score >= options.l2 ? 2
                    : drift_score >= options.l1 ? 1
                                                : 0;
  return level == 0 && feature_alert ? 1 : level;
}

Status ValidateDriftOptions(const DriftOptions& o) {
  if (o.windows_s.empty() || o.windows_s.size() > 8) {
    return InvalidArgument("give 1 to 8 time windows", "drift.windows_s");
  }
  for (int64_t w : o.windows_s) {
    if (w < 1 || w > 86400) return InvalidArgument("windows must be 1..86400 s", "drift.windows_s");
  }
  if (o.count_windows.size() > 8) {
    return InvalidArgument("at most 8 count windows", "drift.count_windows");
  }
  for (uint64_t n : o.count_windows) {
    if (n < 1) return InvalidArgument("count windows must be at least 1", "drift.count_windows");
  }
  if (!(o.l1 >= 0 && o.l1 <= o.l2 && o.l2 <= o.l3)) {
    return InvalidArgument("thresholds must satisfy 0 <= l1 <= l2 <= l3", "drift.l2");
  }
  if (!(o.escalation_first <= o.escalation_second)) {
    return InvalidArgument("escalation_first must not exceed escalation_second",
                           "drift.escalation_first");
  }
  if (o.escalation_window_s < 1) {
    return InvalidArgument("must be at least 1", "drift.escalation_window_s");
  }
  if (!(o.weights.kl >= 0 && o.weights.js >= 0 && o.weights.psi >= 0)) {
    return InvalidArgument("weights must be non-negative", "drift.weights");
  }
  if (o.evaluate_interval_ms < 10 || o.evaluate_interval_ms > 60'000) {
    return InvalidArgument("must be 10..60000", "drift.evaluate_interval_ms");
  }
  if (!(o.min_account_history_days >= 0 && o.min_account_history_days <= 3650)) {
    return InvalidArgument("must be 0..3650", "drift.min_account_history_days");
  }
  if (o.escalate_after_windows < 1 || o.escalate_after_windows > 100) {
    return InvalidArgument("must be 1..100", "drift.escalate_after_windows");
  }
  if (o.retrain_cooldown_s < 0) return InvalidArgument("must be >= 0", "drift.retrain_cooldown_s");
  if (!o.retrain_webhook.empty()) {
    auto url = ParseHttpUrl(o.retrain_webhook);
    if (!url.ok()) return url.status();
  }
  return Status::Ok();
}

}  // namespace verdict::monitor
