#include "cases/case_store.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "cases/case_json.h"
#include "cases/case_ledger.h"
#include "cases/feed_progress.h"
#include "common/json_writer.h"

namespace verdict::cases {
namespace {

std::string CaseKey(std::string_view tenant, std::string_view case_id) {
  return std::string(kCasePrefix) + std::string(tenant) + "/" + std::string(case_id);
}

// Amount, currency and accounts from the canonical transaction JSON the record keeps.
void FillFromCanonical(std::string_view canonical, Case& c) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(canonical);
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) return;
  std::string_view s;
  if (obj["amount"].get_string().get(s) == simdjson::SUCCESS) c.amount = std::string(s);
  if (obj["currency"].get_string().get(s) == simdjson::SUCCESS) c.currency = std::string(s);
  if (obj["sender"]["account"].get_string().get(s) == simdjson::SUCCESS) {
    c.sender_account = std::string(s);
  }
  if (obj["receiver"]["account"].get_string().get(s) == simdjson::SUCCESS) {
    c.receiver_account = std::string(s);
  }
}

}  // namespace

Result<std::optional<Case>> CaseFromRecord(const journal::JournalRecord& record) {
  if (record.kind != journal::RecordKind::kDecision) return std::optional<Case>();
  const Decision& d = record.decision;
  if (d.outcome == Outcome::kAllow) return std::optional<Case>();
  Case c;
  c.case_id = d.decision_id.ToString();
  c.tenant = record.tenant;
  c.decision_id = c.case_id;
  c.transaction_id = d.transaction_id;
  c.journal_seq = record.seq;
  c.outcome = std::string(OutcomeName(d.outcome));
  c.score = d.score;
  c.risk = d.risk;
  for (const Reason& r : d.reasons) {
    c.reasons.push_back({r.code, r.message});
    if (std::find(c.typologies.begin(), c.typologies.end(), r.code) == c.typologies.end()) {
      c.typologies.push_back(r.code);
    }
  }
  if (!record.accounts.empty()) c.sender_account = record.accounts[0];
  c.receiver_account = record.accounts.size() > 1 ? record.accounts[1] : c.sender_account;
  FillFromCanonical(record.canonical_input, c);
  c.transaction_at_us = record.timestamp_us;
  c.opened_at_us = record.decided_at_us;
  c.updated_at_us = record.decided_at_us;
  c.history.push_back(
      {record.decided_at_us, record.principal, "open", std::string(OutcomeName(d.outcome))});
  return std::optional<Case>(std::move(c));
}

CaseStore::CaseStore(journal::Journal& journal, std::shared_ptr<CaseFeed> feed, const Clock& clock)
    : journal_(journal), feed_(std::move(feed)), clock_(clock) {}

Result<std::unique_ptr<CaseStore>> CaseStore::Open(journal::Journal& journal,
                                                   std::shared_ptr<CaseFeed> feed,
                                                   const Clock& clock) {
  std::unique_ptr<CaseStore> store(new CaseStore(journal, std::move(feed), clock));
  VERDICT_RETURN_IF_ERROR(store->Load());
  VERDICT_RETURN_IF_ERROR(store->CatchUp());
  store->feed_thread_ = std::thread([raw = store.get()] { raw->FeedLoop(); });
  return store;
}

CaseStore::~CaseStore() {
  feed_->Close();
  if (feed_thread_.joinable()) feed_thread_.join();
}

Status CaseStore::Load() {
  VERDICT_ASSIGN_OR_RETURN(auto entries, journal_.ListRegistry(kCasePrefix));
  VERDICT_RETURN_IF_ERROR(CheckStoredCases(journal_, entries));
  WriterLock lock(mu_);
  for (auto& [key, value] : entries) {
    auto c = CaseFromJson(value);
    if (!c.ok()) return Internal("stored case " + key + ": " + c.status().message());
    index_.Put(std::move(c).value());
  }
  return Status::Ok();
}

Status CaseStore::CatchUp() {
  VERDICT_ASSIGN_OR_RETURN(auto stored, journal_.GetRegistry(kCaseHighWaterKey));
  uint64_t from = 1;
  if (stored) from = std::strtoull(stored->c_str(), nullptr, 10) + 1;
  const uint64_t to = journal_.durable_sequence();
  size_t opened = 0;
  const size_t before = size();
  for (uint64_t seq = from; seq <= to; ++seq) VERDICT_RETURN_IF_ERROR(OpenFromSeq(seq));
  opened = size() - before;
  if (to >= from) {
    VERDICT_RETURN_IF_ERROR(
        journal_.PutRegistry(kCaseHighWaterKey, std::to_string(to), /*sync=*/false));
    spdlog::info("cases: {} loaded, {} opened from journal records {}..{}", before, opened, from,
                 to);
  }
  return Status::Ok();
}

Status CaseStore::OpenFromSeq(uint64_t seq) {
  VERDICT_ASSIGN_OR_RETURN(auto record, journal_.ReadRecord(seq));
  if (!record) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(std::optional<Case> c, CaseFromRecord(*record));
  if (!c) return Status::Ok();
  MutexLock write(write_mu_);
  {
    ReaderLock lock(mu_);
    if (index_.Find(c->tenant, c->case_id) != nullptr) return Status::Ok();
  }
  // Derived from a durable record: CatchUp opens it again if a crash loses this write.
  return Store(*c, /*sync=*/false);
}

Result<bool> CaseStore::OpenCase(const Case& c, std::string_view principal, std::string_view action,
                                 std::string_view details_json) {
  if (action.rfind("cases.", 0) != 0) {
    return InvalidArgument("a case's admin action must start with 'cases.'", "action");
  }
  MutexLock write(write_mu_);
  {
    ReaderLock lock(mu_);
    if (index_.Find(c.tenant, c.case_id) != nullptr) return false;
  }
  journal::AdminEvent event;
  event.tenant = c.tenant;
  event.principal = std::string(principal);
  event.action = std::string(action);
  event.object = c.case_id;
  event.details_json = WithCaseDigest(details_json, CaseToJson(c));
  // On record first: a case no decision vouches for is trusted at load only through its event.
  VERDICT_RETURN_IF_ERROR(journal_.RecordAdminEvent(event));
  VERDICT_RETURN_IF_ERROR(Store(c));
  return true;
}

void CaseStore::FeedLoop() {
  std::vector<uint64_t> seqs;
  FeedProgress progress;
  uint64_t persisted_mark = 0;
  while (feed_->Take(&seqs)) {
    for (uint64_t seq : seqs) {
      Status s = OpenFromSeq(seq);
      if (!s.ok()) {
        // Not fatal: the high-water mark stays behind it, so the next start-up retries it.
        spdlog::error("cases: cannot open the case of journal record {}: {}", seq, s.message());
      }
      progress.Handled(seq, s.ok());
    }
    // Commit callbacks run in sequence order, so every case up to the mark is stored.
    if (progress.mark() > persisted_mark) {
      Status s =
          journal_.PutRegistry(kCaseHighWaterKey, std::to_string(progress.mark()), /*sync=*/false);
      if (s.ok()) {
        persisted_mark = progress.mark();
      } else {
        spdlog::warn("cases: high-water mark not stored: {}", s.message());
      }
    }
    {
      MutexLock lock(feed_mu_);
      handled_seq_ = std::max(handled_seq_, progress.last());
    }
    feed_cv_.SignalAll();
  }
  MutexLock lock(feed_mu_);
  feed_stopped_ = true;
  feed_cv_.SignalAll();
}

void CaseStore::WaitUntilHandled(uint64_t seq) const {
  MutexLock lock(feed_mu_);
  while (!feed_stopped_ && handled_seq_ < seq) feed_cv_.Wait(feed_mu_);
}

size_t CaseStore::size() const {
  ReaderLock lock(mu_);
  return index_.size();
}

Result<CasePage> CaseStore::List(std::string_view tenant, const CaseQuery& query) const {
  ReaderLock lock(mu_);
  return index_.List(tenant, query);
}

Result<Case> CaseStore::Get(std::string_view tenant, std::string_view case_id) const {
  ReaderLock lock(mu_);
  const Case* c = index_.Find(tenant, case_id);
  if (c == nullptr) return NotFound("no case " + std::string(case_id));
  return *c;
}

Status CaseStore::Store(const Case& c, bool sync) {
  VERDICT_RETURN_IF_ERROR(journal_.PutRegistry(CaseKey(c.tenant, c.case_id), CaseToJson(c), sync));
  WriterLock lock(mu_);
  index_.Put(c);
  return Status::Ok();
}

template <typename Change>
Result<Case> CaseStore::Mutate(std::string_view tenant, std::string_view case_id,
                               std::string_view principal, std::string_view action, Change change,
                               bool* changed) {
  MutexLock write(write_mu_);
  VERDICT_ASSIGN_OR_RETURN(Case c, Get(tenant, case_id));
  const Case before = c;
  std::string details;
  VERDICT_RETURN_IF_ERROR(change(c, clock_.NowMicros(), details));
  if (changed != nullptr) *changed = c.history.size() != before.history.size();
  // The transition recorded nothing (case.h): nothing to journal.
  if (c.history.size() == before.history.size()) return c;
  journal::AdminEvent event;
  event.tenant = std::string(tenant);
  event.principal = std::string(principal);
  event.action = std::string(action);
  event.object = c.case_id;
  // With the digest of the case as stored after the change: the load checks it (case_ledger.h).
  event.details_json = WithCaseDigest(details, CaseToJson(c));
  // Journaled first: a change is acknowledged only once who made it is on record.
  VERDICT_RETURN_IF_ERROR(journal_.RecordAdminEvent(event));
  Status stored = Store(c);
  if (!stored.ok()) {
    // The journal has the change, the registry the case before it: journaled too, so that the
    // next load checks the case against what is really stored.
    event.action = "cases.undone";
    event.details_json = WithCaseDigest("{}", CaseToJson(before));
    Status recorded = journal_.RecordAdminEvent(event);
    if (!recorded.ok()) {
      spdlog::error(
          "cases: case {} was changed in the journal but not stored, and that cannot "
          "be journaled either ({}); the next start refuses the case",
          c.case_id, recorded.ToString());
    }
    return stored;
  }
  return c;
}

Result<Case> CaseStore::Assign(std::string_view tenant, std::string_view case_id,
                               std::string_view principal, std::string_view assignee) {
  return AssignOne(tenant, case_id, principal, assignee, nullptr);
}

Result<Case> CaseStore::AssignOne(std::string_view tenant, std::string_view case_id,
                                  std::string_view principal, std::string_view assignee,
                                  bool* changed) {
  return Mutate(
      tenant, case_id, principal, "cases.assign",
      [&](Case& c, int64_t now, std::string& details) {
        VERDICT_RETURN_IF_ERROR(cases::Assign(c, principal, assignee, now));
        JsonWriter w(details);
        w.BeginObject()
            .Key("assignee")
            .String(assignee)
            .Key("transaction_id")
            .String(c.transaction_id)
            .EndObject();
        return Status::Ok();
      },
      changed);
}

std::vector<AssignResult> CaseStore::AssignMany(std::string_view tenant,
                                                const std::vector<std::string>& case_ids,
                                                std::string_view principal,
                                                std::string_view assignee) {
  std::vector<AssignResult> results;
  results.reserve(case_ids.size());
  for (const std::string& id : case_ids) {
    AssignResult r;
    r.case_id = id;
    Result<Case> c = AssignOne(tenant, id, principal, assignee, &r.changed);
    if (c.ok()) {
      r.c = std::move(c).value();
    } else {
      r.status = c.status();
    }
    results.push_back(std::move(r));
  }
  return results;
}

Result<Case> CaseStore::Comment(std::string_view tenant, std::string_view case_id,
                                std::string_view principal, std::string_view text) {
  return Mutate(tenant, case_id, principal, "cases.comment",
                [&](Case& c, int64_t now, std::string& details) {
                  VERDICT_RETURN_IF_ERROR(AddComment(c, principal, text, now));
                  JsonWriter w(details);
                  w.BeginObject().Key("text").String(text).EndObject();
                  return Status::Ok();
                });
}

Result<Case> CaseStore::Dispose(std::string_view tenant, std::string_view case_id,
                                std::string_view principal, Disposition disposition,
                                std::string_view note) {
  return Mutate(tenant, case_id, principal, "cases.dispose",
                [&](Case& c, int64_t now, std::string& details) {
                  VERDICT_RETURN_IF_ERROR(cases::Dispose(c, principal, disposition, note, now));
                  JsonWriter w(details);
                  w.BeginObject()
                      .Key("disposition")
                      .String(DispositionName(disposition))
                      .Key("note")
                      .String(note)
                      .Key("transaction_id")
                      .String(c.transaction_id)
                      .EndObject();
                  return Status::Ok();
                });
}

Result<std::unordered_map<std::string, int>> LoadCaseLabels(const journal::Journal& journal,
                                                            std::string_view tenant) {
  const std::string prefix = std::string(kCasePrefix) + std::string(tenant) + "/";
  VERDICT_ASSIGN_OR_RETURN(auto entries, journal.ListRegistry(prefix));
  std::unordered_map<std::string, int> labels;
  for (auto& [key, value] : entries) {
    auto c = CaseFromJson(value);
    if (!c.ok()) return Internal("stored case " + key + ": " + c.status().message());
    if (auto label = LabelOf(c->disposition)) labels[c->transaction_id] = *label;
  }
  return labels;
}

}  // namespace verdict::cases
