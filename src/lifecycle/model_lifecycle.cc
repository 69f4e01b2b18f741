#include "lifecycle/model_lifecycle.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "common/rfc3339.h"

namespace verdict::lifecycle {
namespace {

constexpr std::string_view kActiveKey = "lifecycle/active";
constexpr std::string_view kConfiguredKey = "lifecycle/configured";
constexpr std::string_view kRolloutPrincipal = "verdict:rollout";

void WriteRef(JsonWriter& w, const ScoringModel* model) {
  if (model == nullptr) {
    w.Null();
    return;
  }
  const ModelRef& r = model->ref();
  w.BeginObject().Key("name").String(r.name).Key("version").String(r.version);
  w.Key("sha256").String(r.sha256).EndObject();
}

std::string Object(std::string_view name, std::string_view version) {
  return std::string(name) + "/" + std::string(version);
}

std::string Details(std::initializer_list<std::pair<std::string_view, std::string>> fields) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  for (const auto& [key, value] : fields) w.Key(key).String(value);
  w.EndObject();
  return out;
}

std::string WeightText(double weight) {
  std::string out;
  JsonWriter(out).Double(weight);
  return out;
}

// {"name":..,"version":..} or null, from the persisted state.
std::optional<std::pair<std::string, std::string>> ReadRef(simdjson::dom::element e) {
  simdjson::dom::object obj;
  if (e.get_object().get(obj) != simdjson::SUCCESS) return std::nullopt;
  std::string_view name, version;
  if (obj["name"].get_string().get(name) != simdjson::SUCCESS ||
      obj["version"].get_string().get(version) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  return std::pair{std::string(name), std::string(version)};
}

}  // namespace

Result<ActivateMode> ParseActivateMode(std::string_view text) {
  if (text == "primary") return ActivateMode::kPrimary;
  if (text == "shadow") return ActivateMode::kShadow;
  if (text == "canary") return ActivateMode::kCanary;
  if (text == "staged") return ActivateMode::kStaged;
  return InvalidArgument("mode must be \"primary\", \"shadow\", \"canary\" or \"staged\"", "mode");
}

Status ValidateActivation(ActivateMode mode, std::optional<double> traffic_weight) {
  if (mode == ActivateMode::kCanary) {
    if (!traffic_weight) {
      return InvalidArgument("a canary needs traffic_weight, e.g. 0.15", "traffic_weight");
    }
    if (!(*traffic_weight >= kMinTrafficWeight && *traffic_weight <= 1)) {
      return InvalidArgument(
          "traffic_weight must be in [0.0001, 1] (one account bucket in 10,000 is the least share)",
          "traffic_weight");
    }
  } else if (traffic_weight) {
    return InvalidArgument("traffic_weight applies only to mode \"canary\"", "traffic_weight");
  }
  return Status::Ok();
}

ModelLifecycle::ModelLifecycle(LifecycleOptions options, RegistryStore& store, AdminLog admin_log,
                               const Clock& clock, MetricsRegistry* metrics)
    : options_(std::move(options)),
      store_(store),
      registry_(options_.registry, store, clock),
      admin_log_(std::move(admin_log)),
      clock_(clock),
      controller_(options_.rollout) {
  set_.store(std::make_shared<const ModelSet>());
  if (metrics == nullptr) return;
  auto gauge = [metrics](const char* name, const char* help) {
    return metrics->GetGauge(name, help);
  };
  metrics_.comparisons = gauge("verdict_lifecycle_candidate_comparisons",
                               "Transactions scored by both the primary and the candidate in the "
                               "current stage");
  metrics_.outcome_changes = gauge("verdict_lifecycle_candidate_outcome_changes",
                                   "Of those, how many the candidate gave another outcome");
  metrics_.outcome_change_ratio = gauge("verdict_lifecycle_candidate_outcome_change_ratio",
                                        "Outcome changes over comparisons in the current stage");
  metrics_.delta_mean = gauge("verdict_lifecycle_candidate_score_delta_mean",
                              "Mean |candidate score - primary score| in the current stage");
  metrics_.delta_p99 = gauge("verdict_lifecycle_candidate_score_delta_p99",
                             "p99 of |candidate score - primary score| in the current stage");
  metrics_.candidate_p99 = gauge("verdict_lifecycle_candidate_model_p99_seconds",
                                 "p99 of the candidate's model-stage time in the current stage");
  metrics_.weight = gauge("verdict_lifecycle_canary_traffic_weight",
                          "Share of accounts decided by the candidate (0: none)");
  metrics_.stage = gauge("verdict_lifecycle_rollout_stage",
                         "Stage of the staged rollout, from 1; 0 when none is running");
  metrics_.activations =
      metrics->GetCounter("verdict_lifecycle_activations_total", "Model activations");
  metrics_.promotions = metrics->GetCounter("verdict_lifecycle_promotions_total",
                                            "Candidates promoted to primary by a staged rollout");
  metrics_.manual_rollbacks = metrics->GetCounter("verdict_lifecycle_rollbacks_total",
                                                  "Model rollbacks", {{"trigger", "manual"}});
  metrics_.automatic_rollbacks = metrics->GetCounter("verdict_lifecycle_rollbacks_total",
                                                     "Model rollbacks", {{"trigger", "automatic"}});
}

Result<std::unique_ptr<ModelLifecycle>> ModelLifecycle::Create(LifecycleOptions options,
                                                               RegistryStore& store,
                                                               AdminLog admin_log,
                                                               const Clock& clock,
                                                               MetricsRegistry* metrics) {
  VERDICT_RETURN_IF_ERROR(ValidateRolloutOptions(options.rollout, "lifecycle."));
  if (!admin_log) admin_log = [](const AdminChange&) { return Status::Ok(); };
  return std::unique_ptr<ModelLifecycle>(
      new ModelLifecycle(std::move(options), store, std::move(admin_log), clock, metrics));
}

ModelLifecycle::~ModelLifecycle() {
  {
    MutexLock lock(thread_mu_);
    stopping_ = true;
  }
  thread_cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const ModelSet> ModelLifecycle::MakeSet(
    std::shared_ptr<const ScoringModel> primary, std::shared_ptr<const ScoringModel> candidate,
    CandidateMode mode, double weight, bool primary_inherited) const {
  auto set = std::make_shared<ModelSet>();
  set->primary = std::move(primary);
  if (candidate != nullptr && mode != CandidateMode::kNone) {
    set->candidate = std::move(candidate);
    set->mode = mode;
    set->traffic_weight = mode == CandidateMode::kCanary ? weight : 0;
    set->stats = std::make_shared<DivergenceStats>();
    // Without a candidate the tenant has no set of its own to decide with: it follows the
    // deployment's, so the flag only ever marks a primary held beside a candidate.
    set->primary_inherited = primary_inherited;
  }
  set->since_us = clock_.NowMicros();
  return set;
}

Status ModelLifecycle::Persist(const ModelSet& set) const {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("primary");
  WriteRef(w, set.primary.get());
  w.Key("primary_inherited").Bool(set.primary_inherited);
  w.Key("candidate");
  WriteRef(w, set.candidate.get());
  w.Key("mode").String(CandidateModeName(set.mode));
  w.Key("traffic_weight").Double(set.traffic_weight);
  w.Key("rollout").String(RolloutController::ModeName(controller_.mode()));
  w.Key("stage").Uint(controller_.stage());
  w.Key("history").BeginArray();
  for (const auto& model : history_) WriteRef(w, model.get());
  w.EndArray().EndObject();
  return store_.Put(kActiveKey, out);
}

Status ModelLifecycle::Publish(std::shared_ptr<const ModelSet> next) {
  auto set = std::const_pointer_cast<ModelSet>(std::move(next));
  set->generation = ++generation_;
  VERDICT_RETURN_IF_ERROR(Persist(*set));
  persist_pending_ = false;
  set_.store(set);
  UpdateGauges(*set, DivergenceSnapshot{});
  return Status::Ok();
}

void ModelLifecycle::PushHistory(const std::shared_ptr<const ScoringModel>& old_primary,
                                 bool inherited) {
  if (inherited) {
    history_.push_back(nullptr);
  } else if (old_primary != nullptr) {
    history_.push_back(old_primary);
  } else {
    return;
  }
  if (history_.size() > options_.history_limit) history_.erase(history_.begin());
}

Status ModelLifecycle::Restore() {
  VERDICT_ASSIGN_OR_RETURN(auto text, store_.Get(kActiveKey));
  if (!text) return Status::Ok();
  simdjson::dom::parser parser;
  simdjson::padded_string padded(*text);
  simdjson::dom::object obj;
  if (parser.parse(padded).get_object().get(obj) != simdjson::SUCCESS) {
    return Internal("the persisted active model set is unreadable");
  }
  std::shared_ptr<const ScoringModel> primary, candidate;
  if (auto ref = ReadRef(obj["primary"])) {
    auto loaded = registry_.Load(ref->first, ref->second);
    if (!loaded.ok()) {
      // A model refused as tampered with stays kDataLoss: the start is refused for that reason.
      const StatusCode code = loaded.status().code() == StatusCode::kDataLoss
                                  ? StatusCode::kDataLoss
                                  : StatusCode::kInternal;
      return Status(code, "cannot restore primary model " + Object(ref->first, ref->second) + ": " +
                              loaded.status().message());
    }
    primary = *loaded;
  }
  std::string_view mode_text = "none";
  if (obj["mode"].get_string().get(mode_text) != simdjson::SUCCESS) mode_text = "none";
  CandidateMode mode = mode_text == "shadow"   ? CandidateMode::kShadow
                       : mode_text == "canary" ? CandidateMode::kCanary
                                               : CandidateMode::kNone;
  if (auto ref = ReadRef(obj["candidate"]); ref && mode != CandidateMode::kNone) {
    auto loaded = registry_.Load(ref->first, ref->second);
    if (loaded.ok()) {
      candidate = *loaded;
    } else {
      spdlog::warn("lifecycle: candidate {} not restored: {}", Object(ref->first, ref->second),
                   loaded.status().message());
    }
  }
  double weight = 0;
  if (obj["traffic_weight"].get_double().get(weight) != simdjson::SUCCESS) weight = 0;
  std::string_view rollout = "idle";
  if (obj["rollout"].get_string().get(rollout) != simdjson::SUCCESS) rollout = "idle";
  uint64_t stage = 0;
  if (obj["stage"].get_uint64().get(stage) != simdjson::SUCCESS) stage = 0;
  simdjson::dom::array history;
  if (obj["history"].get_array().get(history) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : history) {
      if (e.is_null() && options_.inherited_primary) {
        PushHistory(nullptr, /*inherited=*/true);
        continue;
      }
      auto ref = ReadRef(e);
      if (!ref) continue;
      auto loaded = registry_.Load(ref->first, ref->second);
      if (loaded.ok()) PushHistory(*loaded);
    }
  }
  if (candidate == nullptr) mode = CandidateMode::kNone;
  const int64_t now = clock_.NowMicros();
  if (mode == CandidateMode::kCanary && rollout == "staged") {
    controller_.ResumeStaged(stage, now);
    weight = controller_.stage_weight();
  } else if (mode == CandidateMode::kCanary) {
    controller_.StartCanary(now);
  }
  if (mode == CandidateMode::kCanary && !(weight > 0 && weight <= 1)) mode = CandidateMode::kNone;
  // The deployment's primary may have changed since: a candidate is compared with it as it is
  // now, and without a candidate the tenant follows it.
  bool primary_inherited = false;
  if (obj["primary_inherited"].get_bool().get(primary_inherited) != simdjson::SUCCESS) {
    primary_inherited = false;
  }
  primary_inherited = primary_inherited && static_cast<bool>(options_.inherited_primary);
  if (primary_inherited) {
    std::shared_ptr<const ScoringModel> inherited = options_.inherited_primary();
    // A candidate that has become the deployment's primary since has nothing left to be
    // compared with (Activate refuses that case too): the tenant follows the deployment.
    if (inherited && candidate && inherited->ref().name == candidate->ref().name &&
        inherited->ref().version == candidate->ref().version) {
      mode = CandidateMode::kNone;
    }
    primary = mode == CandidateMode::kNone ? nullptr : std::move(inherited);
  }
  VERDICT_RETURN_IF_ERROR(Publish(MakeSet(primary, candidate, mode, weight, primary_inherited)));
  const auto set = current();
  spdlog::info("lifecycle: restored primary {}{}",
               primary ? Object(primary->ref().name, primary->ref().version) : "(none)",
               set->candidate
                   ? ", " + std::string(CandidateModeName(set->mode)) + " " +
                         Object(set->candidate->ref().name, set->candidate->ref().version)
                   : "");
  return Status::Ok();
}

Status ModelLifecycle::Start(const std::optional<ModelUpload>& configured) {
  Actor config_actor{"default", "config"};
  std::optional<ModelEntry> entry;
  if (configured) {
    auto registered = Register(*configured, config_actor);
    if (!registered.ok()) {
      if (registered.status().code() == StatusCode::kAlreadyExists) {
        return Status(StatusCode::kAlreadyExists,
                      registered.status().message() + " (change model.version for a new model)",
                      "model.version");
      }
      return Status(registered.status().code(), registered.status().message(), "model.path");
    }
    entry = *registered;
  }
  {
    MutexLock lock(mu_);
    VERDICT_RETURN_IF_ERROR(Restore());
  }
  if (entry) {
    VERDICT_ASSIGN_OR_RETURN(auto last, store_.Get(kConfiguredKey));
    const std::string key = Object(entry->name, entry->version) + "@" + entry->sha256;
    const auto set = current();
    const bool restored = set->primary != nullptr;
    if (!restored || !last || *last != key) {
      VERDICT_RETURN_IF_ERROR(
          Activate(entry->name, entry->version, ActivateMode::kPrimary, {}, config_actor));
    }
    VERDICT_RETURN_IF_ERROR(store_.Put(kConfiguredKey, key));
  }
  if (options_.tick_interval_ms > 0) thread_ = std::thread([this] { RunTicks(); });
  return Status::Ok();
}

Result<ModelEntry> ModelLifecycle::Register(const ModelUpload& upload, const Actor& actor,
                                            bool* created) {
  bool fresh = false;
  // Journaled before it is stored: a registration that cannot be recorded is not made (else a
  // retry would find the model registered and record nothing).
  VERDICT_ASSIGN_OR_RETURN(
      ModelEntry entry,
      registry_.Register(upload, actor.principal, &fresh, [&](const ModelEntry& e) {
        return admin_log_(AdminChange{actor, "models.register", Object(e.name, e.version),
                                      Details({{"sha256", e.sha256}})});
      }));
  if (created != nullptr) *created = fresh;
  return entry;
}

Status ModelLifecycle::Activate(std::string_view name, std::string_view version, ActivateMode mode,
                                std::optional<double> traffic_weight, const Actor& actor) {
  VERDICT_RETURN_IF_ERROR(ValidateActivation(mode, traffic_weight));
  VERDICT_ASSIGN_OR_RETURN(auto model, registry_.Load(name, version));
  MutexLock lock(mu_);
  std::shared_ptr<const ModelSet> now_set = current();
  const bool inheriting =
      options_.inherited_primary && (now_set->primary == nullptr || now_set->primary_inherited);
  if (inheriting) {
    // A tenant without a primary of its own decides with the deployment's: that is the model a
    // candidate is compared with and the one a new primary replaces.
    auto inherited = std::make_shared<ModelSet>(*now_set);
    inherited->primary = options_.inherited_primary();
    now_set = std::move(inherited);
  }
  const bool is_primary = now_set->primary &&
                          now_set->primary->ref().sha256 == model->ref().sha256 &&
                          now_set->primary->ref().name == model->ref().name &&
                          now_set->primary->ref().version == model->ref().version;
  if (mode != ActivateMode::kPrimary) {
    if (now_set->primary == nullptr) {
      return Status(StatusCode::kFailedPrecondition,
                    "there is no primary model to compare a candidate with; activate one as "
                    "\"primary\" first",
                    "mode");
    }
    if (is_primary) {
      return Status(StatusCode::kFailedPrecondition,
                    Object(name, version) + " is already the primary model", "mode");
    }
  }
  std::string mode_name;
  std::shared_ptr<const ModelSet> next;
  RolloutController controller = controller_;
  auto history = history_;
  switch (mode) {
    case ActivateMode::kPrimary: {
      mode_name = "primary";
      // Already in force: nothing changes, unless the tenant inherits it and now makes it its
      // own (its decisions no longer follow the deployment's primary, and it gets a drift
      // monitor of its own).
      if (is_primary && !inheriting) return Status::Ok();
      const bool promotes = now_set->candidate &&
                            now_set->candidate->ref().name == model->ref().name &&
                            now_set->candidate->ref().version == model->ref().version;
      if (promotes) controller_.Stop();
      if (!is_primary) PushHistory(now_set->primary, inheriting);
      next = promotes ? MakeSet(model, nullptr, CandidateMode::kNone, 0)
                      : MakeSet(model, now_set->candidate, now_set->mode, now_set->traffic_weight);
      break;
    }
    case ActivateMode::kShadow:
      mode_name = "shadow";
      controller_.Stop();
      next = MakeSet(now_set->primary, model, CandidateMode::kShadow, 0, inheriting);
      break;
    case ActivateMode::kCanary:
      mode_name = "canary";
      controller_.StartCanary(clock_.NowMicros());
      next = MakeSet(now_set->primary, model, CandidateMode::kCanary, *traffic_weight, inheriting);
      break;
    case ActivateMode::kStaged: {
      mode_name = "staged";
      const double weight = controller_.StartStaged(clock_.NowMicros());
      next = MakeSet(now_set->primary, model, CandidateMode::kCanary, weight, inheriting);
      break;
    }
  }
  std::string details =
      "{\"mode\":\"" + mode_name + "\",\"sha256\":\"" + model->ref().sha256 + "\"";
  if (next->mode == CandidateMode::kCanary && next->candidate == model) {
    details += ",\"traffic_weight\":" + WeightText(next->traffic_weight);
  }
  if (now_set->primary) {
    details += ",\"previous_primary\":\"" +
               Object(now_set->primary->ref().name, now_set->primary->ref().version) + "\"";
  }
  details += "}";
  // Journaled first: a change that cannot be recorded is not made.
  Status logged = admin_log_(AdminChange{actor, "models.activate", Object(name, version), details});
  if (logged.ok()) logged = Publish(next);
  if (!logged.ok()) {
    controller_ = std::move(controller);
    history_ = std::move(history);
    return logged;
  }
  if (metrics_.activations) metrics_.activations->Increment();
  spdlog::info("lifecycle: {} activated as {} by {}", Object(name, version), mode_name,
               actor.principal);
  return Status::Ok();
}

Status ModelLifecycle::Rollback(const Actor& actor, std::string_view reason) {
  MutexLock lock(mu_);
  const auto now_set = current();
  RollbackRecord record;
  record.at_us = clock_.NowMicros();
  record.reason = reason.empty() ? "requested" : std::string(reason);
  record.principal = actor.principal;
  std::shared_ptr<const ModelSet> next;
  auto history = history_;
  if (now_set->candidate) {
    record.model = now_set->candidate->ref();
    next = MakeSet(now_set->primary_inherited ? nullptr : now_set->primary, nullptr,
                   CandidateMode::kNone, 0);
  } else if (!history_.empty() && now_set->primary != nullptr) {
    record.model = now_set->primary->ref();
    auto previous = history_.back();
    history_.pop_back();
    next = MakeSet(previous, nullptr, CandidateMode::kNone, 0);
  } else {
    return Status(StatusCode::kFailedPrecondition,
                  "nothing to roll back: no candidate and no previous primary model");
  }
  std::string details = "{\"reason\":";
  AppendJsonString(details, record.reason);
  details += ",\"removed\":\"" + Object(record.model.name, record.model.version) + "\"";
  if (next->primary) {
    details +=
        ",\"primary\":\"" + Object(next->primary->ref().name, next->primary->ref().version) + "\"";
  } else if (options_.inherited_primary) {
    details += ",\"primary\":\"inherited\"";
  }
  details += "}";
  Status logged = admin_log_(AdminChange{actor, "models.rollback",
                                         Object(record.model.name, record.model.version), details});
  RolloutController controller = controller_;
  controller_.Stop();
  if (logged.ok()) logged = Publish(next);
  if (!logged.ok()) {
    controller_ = std::move(controller);
    history_ = std::move(history);
    return logged;
  }
  last_rollback_ = std::move(record);
  if (metrics_.manual_rollbacks) metrics_.manual_rollbacks->Increment();
  spdlog::warn("lifecycle: rollback by {}: {}", actor.principal, last_rollback_->reason);
  return Status::Ok();
}

void ModelLifecycle::Tick() {
  MutexLock lock(mu_);
  const auto set = current();
  if (persist_pending_) persist_pending_ = !Persist(*set).ok();
  const DivergenceSnapshot snapshot = set->stats ? set->stats->Snapshot() : DivergenceSnapshot{};
  UpdateGauges(*set, snapshot);
  if (set->mode != CandidateMode::kCanary) return;
  const int64_t now = clock_.NowMicros();
  const RolloutAction action = controller_.Evaluate(now, snapshot);
  if (action.kind == RolloutAction::Kind::kNone) return;
  const ModelRef candidate = set->candidate->ref();
  std::shared_ptr<const ModelSet> next;
  std::string action_name;
  switch (action.kind) {
    case RolloutAction::Kind::kNone:
      return;
    case RolloutAction::Kind::kAdvance:
      action_name = "models.rollout.advance";
      next = MakeSet(set->primary, set->candidate, CandidateMode::kCanary, action.traffic_weight,
                     set->primary_inherited);
      break;
    case RolloutAction::Kind::kPromote:
      action_name = "models.rollout.promote";
      PushHistory(set->primary, set->primary_inherited);
      next = MakeSet(set->candidate, nullptr, CandidateMode::kNone, 0);
      break;
    case RolloutAction::Kind::kRollback:
      action_name = "models.rollback";
      next = MakeSet(set->primary_inherited ? nullptr : set->primary, nullptr, CandidateMode::kNone,
                     0);
      break;
  }
  controller_.Applied(action, now);
  // Traffic first: the new set is published even if recording it fails, which is logged.
  Status published = Publish(next);
  if (!published.ok()) {
    set_.store(next);
    persist_pending_ = true;
    spdlog::error("lifecycle: {} of {} not persisted: {}", action_name,
                  Object(candidate.name, candidate.version), published.message());
  }
  std::string details = "{\"reason\":";
  AppendJsonString(details, action.reason);
  details += ",\"automatic\":true";
  if (action.kind == RolloutAction::Kind::kAdvance) {
    details += ",\"traffic_weight\":" + WeightText(action.traffic_weight);
  }
  details += "}";
  Status logged =
      admin_log_(AdminChange{Actor{options_.tenant, std::string(kRolloutPrincipal)}, action_name,
                             Object(candidate.name, candidate.version), details});
  if (!logged.ok()) spdlog::error("lifecycle: {} not journaled: {}", action_name, logged.message());
  if (action.kind == RolloutAction::Kind::kRollback) {
    last_rollback_ =
        RollbackRecord{now, candidate, action.reason, std::string(kRolloutPrincipal), true};
    if (metrics_.automatic_rollbacks) metrics_.automatic_rollbacks->Increment();
    spdlog::warn("lifecycle: automatic rollback of {}: {}",
                 Object(candidate.name, candidate.version), action.reason);
  } else {
    if (action.kind == RolloutAction::Kind::kPromote && metrics_.promotions) {
      metrics_.promotions->Increment();
    }
    spdlog::info("lifecycle: {} {}: {}", Object(candidate.name, candidate.version),
                 action.kind == RolloutAction::Kind::kPromote ? "promoted to primary"
                                                              : "advanced to the next stage",
                 action.reason);
  }
}

void ModelLifecycle::UpdateGauges(const ModelSet& set, const DivergenceSnapshot& s) const {
  if (metrics_.comparisons == nullptr) return;
  metrics_.comparisons->Set(static_cast<double>(s.comparisons));
  metrics_.outcome_changes->Set(static_cast<double>(s.outcome_changes));
  metrics_.outcome_change_ratio->Set(s.outcome_change_rate());
  metrics_.delta_mean->Set(s.mean_abs_delta);
  metrics_.delta_p99->Set(s.p99_abs_delta);
  metrics_.candidate_p99->Set(s.candidate_p99_us * 1e-6);
  metrics_.weight->Set(set.mode == CandidateMode::kCanary ? set.traffic_weight : 0);
  metrics_.stage->Set(controller_.mode() == RolloutController::Mode::kStaged
                          ? static_cast<double>(controller_.stage() + 1)
                          : 0);
}

void ModelLifecycle::RunTicks() {
  MutexLock lock(thread_mu_);
  while (!stopping_) {
    thread_cv_.WaitFor(thread_mu_, std::chrono::milliseconds(options_.tick_interval_ms));
    if (stopping_) break;
    lock.Unlock();
    Tick();
    lock.Lock();
  }
}

Status ModelLifecycle::WriteStatusJson(JsonWriter& w) const {
  VERDICT_ASSIGN_OR_RETURN(auto entries, registry_.List());
  MutexLock lock(mu_);
  const auto set = current();
  // A tenant without a primary of its own shows the one its decisions use, and says so.
  std::shared_ptr<const ScoringModel> inherited;
  if (set->primary_inherited) {
    inherited = set->primary;
  } else if (set->primary == nullptr && options_.inherited_primary) {
    inherited = options_.inherited_primary();
  }
  w.BeginObject().Key("models").BeginArray();
  for (const ModelEntry& e : entries) {
    w.BeginObject().Key("name").String(e.name).Key("version").String(e.version);
    w.Key("sha256").String(e.sha256);
    w.Key("registered_at").String(FormatRfc3339Micros(e.registered_at_us));
    w.Key("registered_by").String(e.registered_by);
    w.Key("trees").Uint(e.num_trees).Key("features").Uint(e.num_features);
    w.Key("has_reference").Bool(e.has_reference).Key("manifest");
    if (e.manifest_json.empty()) {
      w.Null();
    } else {
      w.Raw(e.manifest_json);
    }
    std::string role = "registered";
    auto same = [&e](const std::shared_ptr<const ScoringModel>& m) {
      return m && m->ref().name == e.name && m->ref().version == e.version;
    };
    if (same(set->primary) || same(inherited)) role = "primary";
    if (same(set->candidate)) role = std::string(CandidateModeName(set->mode));
    w.Key("role").String(role).EndObject();
  }
  w.EndArray();

  w.Key("active").BeginObject().Key("generation").Uint(set->generation);
  w.Key("since").String(FormatRfc3339Micros(set->since_us));
  w.Key("primary");
  WriteRef(w, set->primary ? set->primary.get() : inherited.get());
  w.Key("primary_inherited").Bool(inherited != nullptr);
  w.Key("candidate");
  WriteRef(w, set->candidate.get());
  w.Key("mode").String(CandidateModeName(set->mode));
  w.Key("traffic_weight").Double(set->traffic_weight).EndObject();

  w.Key("divergence");
  if (set->stats == nullptr) {
    w.Null();
  } else {
    const DivergenceSnapshot s = set->stats->Snapshot();
    w.BeginObject().Key("since").String(FormatRfc3339Micros(set->since_us));
    w.Key("comparisons").Uint(s.comparisons).Key("outcome_changes").Uint(s.outcome_changes);
    w.Key("outcome_change_rate").Double(s.outcome_change_rate());
    w.Key("candidate_stricter").Uint(s.candidate_stricter);
    w.Key("score_delta").BeginObject().Key("count").Uint(s.comparisons);
    w.Key("mean").Double(s.mean_abs_delta).Key("p99").Double(s.p99_abs_delta);
    w.Key("max").Double(s.max_abs_delta).EndObject();
    w.Key("candidate_model_us").BeginObject().Key("count").Uint(s.candidate_timings);
    w.Key("p99").Double(s.candidate_p99_us).EndObject();
    w.EndObject();
  }

  const RolloutOptions& ro = controller_.options();
  w.Key("rollout").BeginObject().Key("state").String(
      RolloutController::ModeName(controller_.mode()));
  if (controller_.mode() == RolloutController::Mode::kStaged) {
    w.Key("stage").Uint(controller_.stage() + 1);
    w.Key("stage_started_at").String(FormatRfc3339Micros(controller_.stage_started_us()));
    w.Key("stage_dwell_s").Double(static_cast<double>(ro.stage_dwell_us) * 1e-6);
  }
  w.Key("stages").BeginArray();
  for (double stage : ro.stages) w.Double(stage);
  w.EndArray();
  w.Key("max_outcome_divergence").Double(ro.max_outcome_divergence);
  w.Key("candidate_p99_budget_us").Int(ro.candidate_p99_budget_us);
  w.Key("min_comparisons").Uint(ro.min_comparisons).EndObject();

  w.Key("history").BeginArray();
  for (auto it = history_.rbegin(); it != history_.rend(); ++it) WriteRef(w, it->get());
  w.EndArray();
  w.Key("last_rollback");
  if (!last_rollback_) {
    w.Null();
  } else {
    const RollbackRecord& r = *last_rollback_;
    w.BeginObject().Key("at").String(FormatRfc3339Micros(r.at_us));
    w.Key("model").BeginObject().Key("name").String(r.model.name);
    w.Key("version").String(r.model.version).Key("sha256").String(r.model.sha256).EndObject();
    w.Key("reason").String(r.reason).Key("by").String(r.principal);
    w.Key("automatic").Bool(r.automatic).EndObject();
  }
  w.EndObject();
  return Status::Ok();
}

}  // namespace verdict::lifecycle
