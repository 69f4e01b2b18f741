#include "engine/admin_ledger.h"

#include <simdjson.h>

#include <cstdint>
#include <vector>

namespace verdict {

Status VisitAdminEvents(const journal::Journal& journal, std::string_view tenant,
                        const std::function<bool(const journal::AdminAction&)>& visit) {
  constexpr size_t kPage = 1000;
  uint64_t before = UINT64_MAX;
  for (;;) {
    VERDICT_ASSIGN_OR_RETURN(std::vector<journal::JournalRecord> page,
                             journal.ListAdminEvents(tenant, kPage, before));
    for (const journal::JournalRecord& r : page) {
      if (!visit(r.admin)) return Status::Ok();
    }
    if (page.size() < kPage) return Status::Ok();
    before = page.back().seq;
  }
}

Result<std::optional<journal::AdminAction>> NewestAdminEvent(
    const journal::Journal& journal, std::string_view tenant,
    const std::function<bool(const journal::AdminAction&)>& matches) {
  std::optional<journal::AdminAction> found;
  VERDICT_RETURN_IF_ERROR(VisitAdminEvents(journal, tenant, [&](const journal::AdminAction& a) {
    if (!matches(a)) return true;
    found = a;
    return false;
  }));
  return found;
}

Result<std::vector<std::string>> JournaledDigests(const journal::Journal& journal,
                                                  std::string_view tenant, std::string_view action,
                                                  std::string_view object) {
  std::vector<std::string> digests;
  VERDICT_RETURN_IF_ERROR(VisitAdminEvents(journal, tenant, [&](const journal::AdminAction& a) {
    if (a.action == action && a.object == object) {
      digests.push_back(AdminDetail(a.details_json, "sha256"));
    }
    return true;
  }));
  return digests;
}

std::function<Result<std::vector<std::string>>(std::string_view object)>
JournaledModelRegistrations(const journal::Journal& journal, std::string tenant) {
  return [&journal, tenant = std::move(tenant)](std::string_view object) {
    return JournaledDigests(journal, tenant, "models.register", object);
  };
}

std::string AdminDetail(std::string_view details_json, std::string_view name) {
  if (details_json.empty()) return {};
  simdjson::dom::parser parser;
  simdjson::padded_string text(details_json);
  simdjson::dom::object details;
  if (parser.parse(text).get_object().get(details) != simdjson::SUCCESS) return {};
  std::string_view value;
  if (details[name].get_string().get(value) != simdjson::SUCCESS) return {};
  return std::string(value);
}

}  // namespace verdict
