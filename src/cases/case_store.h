// CaseStore: the cases of every tenant, persisted in the journal's registry column family
// under "cases/<tenant>/<case_id>" with an in-memory CaseIndex rebuilt on Open. Cases are
// opened from durable decision records (review or block) fed by CaseFeed; every analyst change
// is journaled as an admin event before it is stored. Thread-safe; owns its feed thread; the
// journal must outlive it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cases/case.h"
#include "cases/case_feed.h"
#include "cases/case_index.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "journal/journal.h"

namespace verdict::cases {

// Registry keys.
inline constexpr std::string_view kCasePrefix = "cases/";
inline constexpr std::string_view kCaseHighWaterKey = "cases_meta/high_water_seq";

// Builds the case a durable decision record opens; nullopt when it opens none (an allow
// decision, an admin event).
Result<std::optional<Case>> CaseFromRecord(const journal::JournalRecord& record);

// What a bulk assignment did to one case: `status` ok with `changed` false when the case was
// already the assignee's and in review (nothing journaled), the refusal otherwise.
struct AssignResult {
  std::string case_id;
  Status status;
  bool changed = false;
  std::optional<Case> c;  // the case after the assignment; empty when refused
};

// Most cases one bulk assignment may name.
inline constexpr size_t kMaxBulkAssign = 500;

class CaseStore {
 public:
  // Loads every stored case, then opens the cases of decision records the store has not seen
  // yet (those after the stored high-water sequence number: a crash between a decision's
  // commit and its case), then starts taking sequence numbers from `feed`.
  static Result<std::unique_ptr<CaseStore>> Open(journal::Journal& journal,
                                                 std::shared_ptr<CaseFeed> feed,
                                                 const Clock& clock);
  ~CaseStore();  // closes the feed and joins its thread
  CaseStore(const CaseStore&) = delete;
  CaseStore& operator=(const CaseStore&) = delete;

  Result<CasePage> List(std::string_view tenant, const CaseQuery& query) const EXCLUDES(mu_);
  // kNotFound for a case of another tenant as for one that does not exist (I7).
  Result<Case> Get(std::string_view tenant, std::string_view case_id) const EXCLUDES(mu_);
  // Transitions (case.h); each is journaled (action "cases.assign", "cases.comment",
  // "cases.dispose"; object the case id; principal the caller) and durable when it returns.
  Result<Case> Assign(std::string_view tenant, std::string_view case_id, std::string_view principal,
                      std::string_view assignee) EXCLUDES(write_mu_);
  // Assigns each case as Assign does, one journaled change per case that changes; a refusal of
  // one case does not stop the others. The results are in the order of `case_ids`.
  std::vector<AssignResult> AssignMany(std::string_view tenant,
                                       const std::vector<std::string>& case_ids,
                                       std::string_view principal, std::string_view assignee)
      EXCLUDES(write_mu_);
  Result<Case> Comment(std::string_view tenant, std::string_view case_id,
                       std::string_view principal, std::string_view text) EXCLUDES(write_mu_);
  Result<Case> Dispose(std::string_view tenant, std::string_view case_id,
                       std::string_view principal, Disposition disposition, std::string_view note)
      EXCLUDES(write_mu_);

  // Opens a case no decision record opens by itself (a re-screen's hit on an earlier decision,
  // engine/rescreen.h): journaled as `action` (a "cases." action, so the load checks the stored
  // case against it; object the case id; `details_json` an object, the case's digest added),
  // then stored, synced. False, and nothing journaled, when a case with its id is stored
  // already: the same hit never opens two cases.
  Result<bool> OpenCase(const Case& c, std::string_view principal, std::string_view action,
                        std::string_view details_json) EXCLUDES(write_mu_);
  // Opens the case of journal record `seq` if it opens one and is not yet stored (what the
  // feed thread does; public for tests and catch-up).
  Status OpenFromSeq(uint64_t seq) EXCLUDES(write_mu_);
  // Blocks until the feed thread has handled sequence number `seq` (or later) or has stopped.
  void WaitUntilHandled(uint64_t seq) const EXCLUDES(feed_mu_);
  // The journal record behind a case (for the case view: features, proof).
  Result<std::optional<journal::JournalRecord>> ReadRecord(uint64_t seq) const {
    return journal_.ReadRecord(seq);
  }
  size_t size() const EXCLUDES(mu_);

 private:
  CaseStore(journal::Journal& journal, std::shared_ptr<CaseFeed> feed, const Clock& clock);
  Status Load() EXCLUDES(mu_);
  Status CatchUp();
  Result<Case> AssignOne(std::string_view tenant, std::string_view case_id,
                         std::string_view principal, std::string_view assignee, bool* changed)
      EXCLUDES(write_mu_);
  void FeedLoop() EXCLUDES(feed_mu_);
  // Read-modify-write of one case under write_mu_: journal the event, store, index. A change
  // that leaves the case's history as it was (a no-op) is neither journaled nor stored;
  // `changed` (may be null) says which.
  template <typename Change>
  Result<Case> Mutate(std::string_view tenant, std::string_view case_id, std::string_view principal,
                      std::string_view action, Change change, bool* changed = nullptr)
      EXCLUDES(write_mu_);
  // Registry write, then index. Unsynced only for a case opened from a durable record (CatchUp
  // opens it again); an analyst's change is synced, as its admin event is.
  Status Store(const Case& c, bool sync = true) REQUIRES(write_mu_) EXCLUDES(mu_);

  journal::Journal& journal_;
  std::shared_ptr<CaseFeed> feed_;
  const Clock& clock_;

  // Serializes read-modify-write of cases; held across the journal write and then mu_.
  Mutex write_mu_ ACQUIRED_BEFORE(mu_);
  mutable SharedMutex mu_ ACQUIRED_AFTER(write_mu_);
  CaseIndex index_ GUARDED_BY(mu_);

  mutable Mutex feed_mu_;
  mutable CondVar feed_cv_;
  uint64_t handled_seq_ GUARDED_BY(feed_mu_) = 0;  // the last sequence number handled
  bool feed_stopped_ GUARDED_BY(feed_mu_) = false;
  std::thread feed_thread_;
};

// Dispositions of a tenant's closed cases as training labels (case.h LabelOf), by transaction
// id. Reads the registry directly; the engine need not be running, but the journal is opened
// by the caller.
Result<std::unordered_map<std::string, int>> LoadCaseLabels(const journal::Journal& journal,
                                                            std::string_view tenant);

}  // namespace verdict::cases
