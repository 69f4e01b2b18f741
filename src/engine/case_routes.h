// The analyst's case routes (GET /v1/cases, GET /v1/cases/{id}, POST /v1/cases/{id}:assign,
// :comment, :dispose; role analyst), always within the caller's tenant: another tenant's case
// is 404, as an unknown one. The CaseStore and Journal must outlive the router; the handlers
// are thread-safe like the store.
#pragma once

#include <string>
#include <string_view>

#include "api/router.h"
#include "cases/case_index.h"
#include "cases/case_store.h"
#include "common/result.h"
#include "journal/journal.h"
#include "lifecycle/tenant_models.h"

namespace verdict {

// The query string of GET /v1/cases: status, typology, account, limit (1..500), cursor and
// sort (score, age, newest). Values are percent-decoded; an unknown parameter is an error
// naming it.
Result<cases::CaseQuery> ParseCaseQuery(std::string_view query);

// Percent-decoding of one query-string value ('+' is a space); kInvalidArgument naming `field`
// for a malformed escape.
Result<std::string> DecodeQueryValue(std::string_view value, std::string_view field);

// `models` (may be null) explains a case's decision again from its journaled features (the
// engine explains after journaling, so records carry features, not contributions).
void RegisterCaseRoutes(cases::CaseStore& cases, const journal::Journal& journal,
                        const lifecycle::TenantModels* models, Router& router);

}  // namespace verdict
