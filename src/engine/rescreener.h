// Rescreener: continuous screening (docs/policy.md, "Continuous screening"). When a tenant's
// policy activation brings new names into a `names` list (an import, or a bundle that changes
// a list), the names the list added are screened, in the background, against the sender and
// receiver names of the tenant's decisions of the last `days` days, read from the journal
// newest first; a hit opens a case (typology SANCTIONS_RESCREEN) on the party's most recent
// decision, once per hit however often the list comes back (cases/case_store.h OpenCase). Runs
// are stored (rescreen_run.h) and journaled as "lists.rescreen" admin events; a restart resumes
// one that had not finished, and a newer version's run takes over an unfinished one, owed names
// included. One worker thread, one run at a time, never on the decision path.
// Thread-safe; the journal and the case store must outlive it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "cases/case_store.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "engine/active_policy.h"
#include "engine/caller.h"
#include "engine/rescreen_run.h"
#include "journal/journal.h"

namespace verdict {

class Rescreener {
 public:
  struct Options {
    int64_t days = 30;  // 0: activations start no run (stored runs still resume)
    double min_score = 0.85;
    // Distinct party names one run screens at most: the work of a run is bounded; a run that
    // reaches it says so (truncated) and screens the most recent parties.
    size_t max_parties = 1'000'000;
  };

  // Loads the stored runs, queues those that had not finished, and starts the worker.
  static Result<std::unique_ptr<Rescreener>> Start(journal::Journal& journal,
                                                   cases::CaseStore& cases, const Clock& clock,
                                                   MetricsRegistry& metrics, Options options);
  // Stops the worker; a run under way stops where it is and stays stored, to resume at the
  // next start.
  ~Rescreener();
  Rescreener(const Rescreener&) = delete;
  Rescreener& operator=(const Rescreener&) = delete;

  // Engine::PolicyActivatedHook's work: stores and queues a run of the names `next` adds to
  // `previous` (and what an unfinished run of the tenant still owed). Quick: one synced
  // registry write.
  void OnPolicyActivated(const Caller& caller, const ActivePolicy* previous,
                         const ActivePolicy& next) EXCLUDES(mu_);
  // The version of `list` the tenant's next activation brings (an import names it; a bundle
  // does not): the run and its cases show it. Forget drops it when that activation fails.
  void ExpectListVersion(const std::string& tenant, std::string list, std::string version)
      EXCLUDES(mu_);
  void ForgetListVersion(const std::string& tenant) EXCLUDES(mu_);
  // The tenant's last run, as it stands.
  std::optional<RescreenRun> Last(std::string_view tenant) const EXCLUDES(mu_);

 private:
  struct Slot {
    RescreenRun run;
    uint64_t generation = 0;  // bumped by every new run: an older one sees it and stops
  };
  struct Party;

  Rescreener(journal::Journal& journal, cases::CaseStore& cases, const Clock& clock,
             MetricsRegistry& metrics, Options options);
  void Loop() EXCLUDES(mu_);
  void Execute(const std::string& tenant, RescreenRun run, uint64_t generation) EXCLUDES(mu_);
  // The run's parties: distinct names of the tenant's decisions since run.since_us, newest
  // first, each with its most recent decision.
  Status ReadParties(const std::string& tenant, uint64_t generation, RescreenRun& run,
                     std::vector<Party>& parties) EXCLUDES(mu_);
  // Opens the case of one hit; true when it opened (false: that hit has its case already).
  Result<bool> OpenHitCase(const std::string& tenant, const RescreenRun& run,
                           const RescreenList& list, const Party& party,
                           const WatchlistEntry& entry, double score);
  bool Cancelled(const std::string& tenant, uint64_t generation) const EXCLUDES(mu_);
  // Publishes `run` as the tenant's and stores it, unless a newer run has replaced it.
  void Save(const std::string& tenant, uint64_t generation, const RescreenRun& run) EXCLUDES(mu_);
  void Persist(const std::string& tenant, const RescreenRun& run) REQUIRES(mu_);
  void RecordEvent(const std::string& tenant, const RescreenRun& run);

  journal::Journal& journal_;
  cases::CaseStore& cases_;
  const Clock& clock_;
  MetricsRegistry& metrics_;
  const Options options_;

  mutable Mutex mu_;
  CondVar cv_;  // a tenant queued, or stopping
  std::map<std::string, Slot, std::less<>> runs_ GUARDED_BY(mu_);
  std::deque<std::string> queue_ GUARDED_BY(mu_);  // tenants whose run waits
  // Tenant -> (list, version) of an import under way.
  std::map<std::string, std::pair<std::string, std::string>, std::less<>> expected_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread worker_;
};

}  // namespace verdict
