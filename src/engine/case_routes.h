// The analyst's case routes (GET /v1/cases, GET /v1/cases/{id}, POST /v1/cases/{id}:assign,
// :comment, :dispose, POST /v1/cases:assign for many; role analyst) and GET /v1/whoami (any
// role: who the console is signed in as), always within the caller's tenant: another tenant's case
// is 404, as an unknown one. The CaseStore and Journal must outlive the router; the handlers
// are thread-safe like the store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/router.h"
#include "cases/case_index.h"
#include "cases/case_store.h"
#include "common/result.h"
#include "journal/journal.h"
#include "lifecycle/tenant_models.h"

namespace verdict {

// The query string of GET /v1/cases: status, typology, account, assignee (a principal, "me"
// for `caller`, "none" for unassigned), from and to (RFC 3339 times or YYYY-MM-DD dates,
// bounding when the case opened: from inclusive, to exclusive, a date `to` includes its day),
// limit (1..500), cursor and sort (severity, the default; score, age, newest). Values are
// percent-decoded; an unknown parameter or a bad value is an error naming the parameter.
Result<cases::CaseQuery> ParseCaseQuery(std::string_view query, std::string_view caller = "");

// The body of POST /v1/cases:assign: {"case_ids": [...], "assignee"?: "..."}; 1 to
// cases::kMaxBulkAssign distinct ids. `assignee` is `caller` when absent.
struct BulkAssignRequest {
  std::vector<std::string> case_ids;
  std::string assignee;
};
Result<BulkAssignRequest> ParseBulkAssign(std::string_view body, std::string_view caller);

// Percent-decoding of one query-string value ('+' is a space); kInvalidArgument naming `field`
// for a malformed escape.
Result<std::string> DecodeQueryValue(std::string_view value, std::string_view field);

// `models` (may be null) explains a case's decision again from its journaled features (the
// engine explains after journaling, so records carry features, not contributions).
void RegisterCaseRoutes(cases::CaseStore& cases, const journal::Journal& journal,
                        const lifecycle::TenantModels* models, Router& router);

}  // namespace verdict
