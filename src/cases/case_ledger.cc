#include "cases/case_ledger.h"

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "cases/case_json.h"
#include "cases/case_store.h"
#include "common/json_writer.h"
#include "common/sha256.h"

namespace verdict::cases {
namespace {

struct LastChange {
  std::string action;
  std::string record_sha256;  // empty: journaled before changes carried the digest
};
using LastChanges = std::map<std::string, LastChange, std::less<>>;  // by case id

std::string DigestOf(std::string_view details_json) {
  if (details_json.empty()) return {};
  simdjson::dom::parser parser;
  simdjson::padded_string text(details_json);
  simdjson::dom::object details;
  std::string_view digest;
  if (parser.parse(text).get_object().get(details) != simdjson::SUCCESS ||
      details["record_sha256"].get_string().get(digest) != simdjson::SUCCESS) {
    return {};
  }
  return std::string(digest);
}

// The newest "cases.*" admin event of each of the tenant's cases.
Result<LastChanges> LastChangesOf(const journal::Journal& journal, std::string_view tenant) {
  constexpr size_t kPage = 1000;
  LastChanges out;
  uint64_t before = UINT64_MAX;
  for (;;) {
    VERDICT_ASSIGN_OR_RETURN(std::vector<journal::JournalRecord> page,
                             journal.ListAdminEvents(tenant, kPage, before));
    for (const journal::JournalRecord& r : page) {
      const journal::AdminAction& a = r.admin;
      if (a.action.rfind("cases.", 0) != 0 || out.count(a.object) != 0) continue;
      out.emplace(a.object, LastChange{a.action, DigestOf(a.details_json)});
    }
    if (page.size() < kPage) return out;
    before = page.back().seq;
  }
}

Status NotAsJournaled(const Case& c, const std::string& why) {
  return DataLoss("case " + c.case_id + " of tenant " + c.tenant + ": the stored case " + why +
                  "; refusing to trust the case store");
}

// A case no analyst changed: exactly what its decision record opens.
Status CheckOpenedFromRecord(const journal::Journal& journal, const Case& c,
                             std::string_view stored) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<journal::JournalRecord> record,
                           journal.ReadRecord(c.journal_seq));
  std::optional<Case> opened;
  if (record) {
    VERDICT_ASSIGN_OR_RETURN(opened, CaseFromRecord(*record));
  }
  if (opened && CaseToJson(*opened) == stored) return Status::Ok();
  // Stored by a version whose cases kept reason codes only: the same case without its reasons.
  if (opened && !opened->reasons.empty()) {
    opened->reasons.clear();
    if (CaseToJson(*opened) == stored) return Status::Ok();
  }
  return NotAsJournaled(c, "is not the case its decision record (journal record " +
                               std::to_string(c.journal_seq) +
                               ") opens, and no journaled change made it so");
}

}  // namespace

std::string WithCaseDigest(std::string_view details_json, std::string_view stored_case_json) {
  std::string out(details_json);
  while (!out.empty() && out.back() != '}') out.pop_back();
  if (out.empty()) out = "{}";
  out.pop_back();
  if (out.size() > 1) out += ",";
  out += "\"record_sha256\":";
  AppendJsonString(out, Sha256Hex(stored_case_json));
  out += "}";
  return out;
}

Status CheckStoredCases(const journal::Journal& journal,
                        const std::vector<std::pair<std::string, std::string>>& entries) {
  std::map<std::string, LastChanges, std::less<>> by_tenant;
  std::set<std::pair<std::string, std::string>> stored;  // (tenant, case id)
  for (const auto& [key, value] : entries) {
    Result<Case> c = CaseFromJson(value);
    if (!c.ok()) return Internal("stored case " + key + ": " + c.status().message());
    if (key != std::string(kCasePrefix) + c->tenant + "/" + c->case_id) {
      return DataLoss("registry entry " + key + " holds case " + c->case_id + " of tenant " +
                      c->tenant);
    }
    stored.emplace(c->tenant, c->case_id);
    auto tenant = by_tenant.find(c->tenant);
    if (tenant == by_tenant.end()) {
      VERDICT_ASSIGN_OR_RETURN(LastChanges changes, LastChangesOf(journal, c->tenant));
      tenant = by_tenant.emplace(c->tenant, std::move(changes)).first;
    }
    const auto last = tenant->second.find(c->case_id);
    if (last == tenant->second.end()) {
      VERDICT_RETURN_IF_ERROR(CheckOpenedFromRecord(journal, *c, value));
      continue;
    }
    const std::string& journaled = last->second.record_sha256;
    if (journaled.empty() || journaled == Sha256Hex(value)) continue;
    return NotAsJournaled(*c,
                          "does not match its last journaled change (" + last->second.action + ")");
  }
  // A case an analyst changed is kept until the end: one missing was deleted from the registry,
  // which would take an alert out of the queue. A case no analyst has changed yet has no
  // journaled change to miss it by: its deletion is not found here.
  VERDICT_ASSIGN_OR_RETURN(std::vector<std::string> tenants, journal.AdminTenants());
  for (const std::string& tenant : tenants) {
    auto changes = by_tenant.find(tenant);
    if (changes == by_tenant.end()) {
      VERDICT_ASSIGN_OR_RETURN(LastChanges loaded, LastChangesOf(journal, tenant));
      changes = by_tenant.emplace(tenant, std::move(loaded)).first;
    }
    for (const auto& [case_id, last] : changes->second) {
      if (!stored.contains({tenant, case_id})) {
        return DataLoss("case " + case_id + " of tenant " + tenant + " has journaled changes (" +
                        last.action + ") but is not stored; refusing to trust the case store");
      }
    }
  }
  return Status::Ok();
}

}  // namespace verdict::cases
