#include "engine/rescreener.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "common/json_writer.h"
#include "policy/compiled_policy.h"
#include "policy/list_rescreen.h"
#include "policy/name_normalizer.h"

namespace verdict {

// A name the run screens: as the payment gave it, its role and its most recent decision.
struct Rescreener::Party {
  std::string name;
  std::string_view role;  // "sender" or "receiver"
  uint64_t seq = 0;
};

namespace {

// The principal of the cases a run opens (the admin event of the run names who activated it).
constexpr std::string_view kRescreenPrincipal = "verdict-rescreen";
constexpr std::string_view kTypology = "SANCTIONS_RESCREEN";
// How often a run looks whether it was superseded or the engine is stopping.
constexpr uint64_t kCancelCheckEvery = 256;

struct CanonicalFields {
  std::string sender_name, receiver_name, sender_account, receiver_account, amount, currency;
};

CanonicalFields ReadCanonical(std::string_view canonical) {
  CanonicalFields f;
  simdjson::dom::parser parser;
  simdjson::padded_string text(canonical);
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) return f;
  auto take = [](simdjson::simdjson_result<simdjson::dom::element> e, std::string* out) {
    std::string_view s;
    if (e.get_string().get(s) == simdjson::SUCCESS) *out = std::string(s);
  };
  take(obj["sender"]["name"], &f.sender_name);
  take(obj["receiver"]["name"], &f.receiver_name);
  take(obj["sender"]["account"], &f.sender_account);
  take(obj["receiver"]["account"], &f.receiver_account);
  take(obj["amount"], &f.amount);
  take(obj["currency"], &f.currency);
  return f;
}

std::string JoinTokens(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& t : tokens) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

const Watchlist* FindList(const CompiledPolicy* policy, std::string_view name) {
  if (policy == nullptr) return nullptr;
  for (const auto& [list, watchlist] : policy->NameLists()) {
    if (list == name) return watchlist;
  }
  return nullptr;
}

bool Unfinished(RescreenState state) {
  return state == RescreenState::kPending || state == RescreenState::kRunning ||
         state == RescreenState::kFailed;
}

}  // namespace

Rescreener::Rescreener(journal::Journal& journal, cases::CaseStore& cases, const Clock& clock,
                       MetricsRegistry& metrics, Options options)
    : journal_(journal), cases_(cases), clock_(clock), metrics_(metrics), options_(options) {}

Result<std::unique_ptr<Rescreener>> Rescreener::Start(journal::Journal& journal,
                                                      cases::CaseStore& cases, const Clock& clock,
                                                      MetricsRegistry& metrics, Options options) {
  std::unique_ptr<Rescreener> r(new Rescreener(journal, cases, clock, metrics, options));
  VERDICT_ASSIGN_OR_RETURN(auto stored, journal.ListRegistry(kRescreenPrefix));
  {
    MutexLock lock(r->mu_);
    for (const auto& [key, value] : stored) {
      const std::string tenant = key.substr(kRescreenPrefix.size());
      Result<RescreenRun> run = RescreenRunFromJson(value);
      if (!run.ok()) {
        // Derived state (the cases it opened are journaled and stored on their own): a run that
        // cannot be read is not resumed, and the next activation replaces it.
        spdlog::error("re-screen of tenant {}: {}; not resumed", tenant, run.status().message());
        continue;
      }
      if (Unfinished(run->state)) {
        run->state = RescreenState::kPending;
        r->queue_.push_back(tenant);
        spdlog::info("re-screen {} of tenant {} resumes", run->run_id, tenant);
      }
      r->runs_[tenant].run = std::move(run).value();
    }
  }
  r->worker_ = std::thread([raw = r.get()] { raw->Loop(); });
  return r;
}

Rescreener::~Rescreener() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  if (worker_.joinable()) worker_.join();
}

void Rescreener::OnPolicyActivated(const Caller& caller, const ActivePolicy* previous,
                                   const ActivePolicy& next) {
  const CompiledPolicy* now_in_force = next.compiled();
  if (options_.days <= 0 || now_in_force == nullptr) return;
  const CompiledPolicy* before = previous != nullptr ? previous->compiled() : nullptr;
  const int64_t now = clock_.NowMicros();
  MutexLock lock(mu_);
  std::pair<std::string, std::string> imported;
  if (auto it = expected_.find(caller.tenant); it != expected_.end()) {
    imported = std::move(it->second);
    expected_.erase(it);
  }
  auto slot = runs_.find(caller.tenant);
  const RescreenRun* owed =
      slot != runs_.end() && Unfinished(slot->second.run.state) ? &slot->second.run : nullptr;
  RescreenRun run;
  for (const auto& [name, watchlist] : now_in_force->NameLists()) {
    const Watchlist* was = FindList(before, name);
    const RescreenList* unfinished = nullptr;
    if (owed != nullptr) {
      for (const RescreenList& l : owed->lists) {
        if (l.list == name) unfinished = &l;
      }
    }
    std::vector<Watchlist::Input> added = unfinished != nullptr
                                              ? PendingDelta(unfinished->added, was, *watchlist)
                                              : AddedEntries(was, *watchlist);
    if (added.empty()) continue;
    std::string version = imported.first == name
                              ? imported.second
                              : "policy-" + std::string(now_in_force->ref().version);
    run.lists.push_back({std::string(name), std::move(version), std::move(added)});
  }
  if (run.lists.empty() && owed == nullptr) return;
  run.policy_version = now_in_force->ref().version;
  run.run_id = run.policy_version + "@" + std::to_string(now);
  run.principal = caller.principal;
  run.activated_at_us = now;
  run.since_us = now - options_.days * kMicrosPerDay;
  // Names an unfinished run owed are screened over its window too.
  if (owed != nullptr) run.since_us = std::min(run.since_us, owed->since_us);
  Slot& s = runs_[caller.tenant];
  // Two activations within one microsecond still make two runs.
  if (s.run.run_id == run.run_id) run.run_id += "." + std::to_string(s.generation + 1);
  ++s.generation;
  s.run = std::move(run);
  Persist(caller.tenant, s.run);
  if (std::find(queue_.begin(), queue_.end(), caller.tenant) == queue_.end()) {
    queue_.push_back(caller.tenant);
  }
  cv_.Signal();
}

void Rescreener::ExpectListVersion(const std::string& tenant, std::string list,
                                   std::string version) {
  MutexLock lock(mu_);
  expected_[tenant] = {std::move(list), std::move(version)};
}

void Rescreener::ForgetListVersion(const std::string& tenant) {
  MutexLock lock(mu_);
  expected_.erase(tenant);
}

std::optional<RescreenRun> Rescreener::Last(std::string_view tenant) const {
  MutexLock lock(mu_);
  auto it = runs_.find(tenant);
  if (it == runs_.end()) return std::nullopt;
  return it->second.run;
}

void Rescreener::Loop() {
  for (;;) {
    std::string tenant;
    RescreenRun run;
    uint64_t generation = 0;
    {
      MutexLock lock(mu_);
      while (!stopping_ && queue_.empty()) cv_.Wait(mu_);
      if (stopping_) return;
      tenant = std::move(queue_.front());
      queue_.pop_front();
      Slot& slot = runs_[tenant];
      slot.run.state = RescreenState::kRunning;
      run = slot.run;
      generation = slot.generation;
    }
    Execute(tenant, std::move(run), generation);
  }
}

void Rescreener::Execute(const std::string& tenant, RescreenRun run, uint64_t generation) {
  const MetricLabels labels = {{"tenant", tenant}};
  Save(tenant, generation, run);
  RecordEvent(tenant, run);
  std::vector<Party> parties;
  Status status = run.lists.empty() ? Status::Ok() : ReadParties(tenant, generation, run, parties);
  std::vector<std::string> names;
  names.reserve(parties.size());
  for (const Party& p : parties) names.push_back(p.name);
  const bool read_all = !Cancelled(tenant, generation);
  for (size_t i = 0; read_all && status.ok() && i < run.lists.size(); ++i) {
    const RescreenList& list = run.lists[i];
    auto added = Watchlist::Build(list.added);
    for (const RescreenHit& hit : ScreenAgainstAdded(*added, names, options_.min_score)) {
      if (Cancelled(tenant, generation)) break;
      ++run.hits;
      Result<bool> opened = OpenHitCase(tenant, run, list, parties[hit.party],
                                        added->entries()[hit.entry], hit.score);
      if (!opened.ok()) {
        status = opened.status();
        break;
      }
      if (*opened) ++run.cases_opened;
    }
  }
  metrics_
      .GetCounter("verdict_rescreen_parties_total",
                  "Party names screened against the names a new list version added", labels)
      ->Increment(parties.size());
  metrics_.GetCounter("verdict_rescreen_hits_total", "Re-screen hits on added names", labels)
      ->Increment(run.hits);
  metrics_
      .GetCounter("verdict_rescreen_cases_opened_total",
                  "Cases opened by re-screen hits (a hit opens at most one)", labels)
      ->Increment(run.cases_opened);
  std::string outcome;
  if (Cancelled(tenant, generation)) {
    bool stopping;
    {
      MutexLock lock(mu_);
      stopping = stopping_;
    }
    // Stopping: the stored run stays unfinished and resumes at the next start.
    if (stopping) return;
    // Superseded: the newer run carries the names this one still owed.
    run.state = RescreenState::kSuperseded;
    outcome = "superseded";
    run.finished_at_us = clock_.NowMicros();
    RecordEvent(tenant, run);
  } else {
    run.state = status.ok() ? RescreenState::kDone : RescreenState::kFailed;
    run.error = status.ok() ? "" : status.message();
    run.finished_at_us = clock_.NowMicros();
    outcome = std::string(RescreenStateName(run.state));
    if (!status.ok()) {
      spdlog::error("re-screen {} of tenant {} failed: {}", run.run_id, tenant, status.message());
    }
    RecordEvent(tenant, run);
    Save(tenant, generation, run);
  }
  metrics_
      .GetCounter("verdict_rescreen_runs_total", "Re-screen runs by how they ended",
                  {{"tenant", tenant}, {"outcome", outcome}})
      ->Increment();
}

Status Rescreener::ReadParties(const std::string& tenant, uint64_t generation, RescreenRun& run,
                               std::vector<Party>& parties) {
  // The journal has no time index; its sequence follows decision time, so reading newest first
  // stops at the first record decided before the window.
  std::unordered_set<std::string> seen;
  for (uint64_t seq = journal_.durable_sequence(); seq >= 1; --seq) {
    if (run.records_read % kCancelCheckEvery == 0 && Cancelled(tenant, generation)) {
      return Status::Ok();
    }
    VERDICT_ASSIGN_OR_RETURN(std::optional<journal::JournalRecord> record,
                             journal_.ReadRecord(seq));
    ++run.records_read;
    if (!record) continue;
    if (record->decided_at_us < run.since_us) break;
    if (record->kind != journal::RecordKind::kDecision || record->tenant != tenant) continue;
    const CanonicalFields f = ReadCanonical(record->canonical_input);
    for (auto [name, role] :
         {std::pair<const std::string&, std::string_view>(f.sender_name, "sender"),
          std::pair<const std::string&, std::string_view>(f.receiver_name, "receiver")}) {
      if (name.empty()) continue;
      std::string key = JoinTokens(NormalizeNameTokens(name));
      if (key.empty() || !seen.insert(std::move(key)).second) continue;
      if (parties.size() >= options_.max_parties) {
        run.truncated = true;
        run.parties = parties.size();
        return Status::Ok();
      }
      parties.push_back({name, role, record->seq});
    }
  }
  run.parties = parties.size();
  return Status::Ok();
}

Result<bool> Rescreener::OpenHitCase(const std::string& tenant, const RescreenRun& run,
                                     const RescreenList& list, const Party& party,
                                     const WatchlistEntry& entry, double score) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<journal::JournalRecord> record,
                           journal_.ReadRecord(party.seq));
  if (!record) return DataLoss("journal record " + std::to_string(party.seq) + " is gone");
  const CanonicalFields f = ReadCanonical(record->canonical_input);
  const int64_t now = clock_.NowMicros();
  cases::Case c;
  c.case_id = RescreenCaseId(tenant, list.list, entry, party.name);
  c.tenant = tenant;
  c.decision_id = record->decision.decision_id.ToString();
  c.transaction_id = record->decision.transaction_id;
  c.journal_seq = record->seq;
  // A listed party calls for review whatever the decision was (allowed under the earlier list).
  c.outcome = "review";
  c.score = score;
  c.typologies = {std::string(kTypology)};
  c.reasons = {{std::string(kTypology),
                RescreenReason(list.list, list.version, party.role, party.name, entry, score)}};
  c.sender_account = f.sender_account;
  c.receiver_account = f.receiver_account;
  c.amount = f.amount;
  c.currency = f.currency;
  c.transaction_at_us = record->timestamp_us;
  c.opened_at_us = now;
  c.updated_at_us = now;
  c.history.push_back({now, std::string(kRescreenPrincipal), "open", "review"});
  std::string details;
  JsonWriter w(details);
  w.BeginObject().Key("run").String(run.run_id).Key("list").String(list.list);
  w.Key("list_version").String(list.version);
  w.Key("policy_version").String(run.policy_version).Key("activated_by").String(run.principal);
  w.Key("party").BeginObject().Key("name").String(party.name).Key("role").String(party.role);
  w.EndObject().Key("entry").BeginObject().Key("id").String(entry.id);
  w.Key("name").String(entry.name).Key("primary").String(entry.primary);
  w.Key("alias_kind").String(entry.alias_kind).EndObject();
  w.Key("score").Double(score).Key("decision_id").String(c.decision_id).EndObject();
  return cases_.OpenCase(c, kRescreenPrincipal, "cases.open_rescreen", details);
}

bool Rescreener::Cancelled(const std::string& tenant, uint64_t generation) const {
  MutexLock lock(mu_);
  if (stopping_) return true;
  auto it = runs_.find(tenant);
  return it == runs_.end() || it->second.generation != generation;
}

void Rescreener::Save(const std::string& tenant, uint64_t generation, const RescreenRun& run) {
  MutexLock lock(mu_);
  auto it = runs_.find(tenant);
  if (it == runs_.end() || it->second.generation != generation) return;
  it->second.run = run;
  Persist(tenant, run);
}

void Rescreener::Persist(const std::string& tenant, const RescreenRun& run) {
  Status s = journal_.PutRegistry(std::string(kRescreenPrefix) + tenant, RescreenRunToJson(run));
  if (!s.ok()) {
    // The run still goes ahead in memory; only a restart before it ends would lose it.
    spdlog::error("re-screen {} of tenant {}: cannot store the run: {}", run.run_id, tenant,
                  s.message());
  }
}

void Rescreener::RecordEvent(const std::string& tenant, const RescreenRun& run) {
  std::string details;
  JsonWriter w(details);
  WriteRescreenStatusJson(run, w);
  Status s = journal_.RecordAdminEvent(
      journal::AdminEvent{tenant, run.principal, "lists.rescreen", run.run_id, details});
  if (!s.ok()) {
    spdlog::error("re-screen {} of tenant {}: cannot journal its {}: {}", run.run_id, tenant,
                  RescreenStateName(run.state), s.message());
  }
}

}  // namespace verdict
