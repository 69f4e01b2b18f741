// GET /v1/cases/{case_id}/report?format=goaml|html: a case's suspicious transaction report as
// goAML XML (escalated cases only) or its printable HTML narrative (any case), role analyst,
// within the caller's tenant (another tenant's case is 404, as an unknown one). Every export is
// journaled before it is answered (admin event "reports.export": the case, the format, the
// caller and the SHA-256 of the bytes), so that a filed report can be shown to be the one the
// engine produced. The CaseStore, Journal, TenantModels and Clock must outlive the router; the
// handler is thread-safe as they are. docs/reports.md.
#pragma once

#include "api/router.h"
#include "cases/case_store.h"
#include "common/clock.h"
#include "journal/journal.h"
#include "lifecycle/tenant_models.h"
#include "reports/report_options.h"

namespace verdict {

// `models` (may be null) explains a decision whose record carries no contributions again, with
// the model that decided when it is still loaded. `options` is copied.
void RegisterReportRoutes(cases::CaseStore& cases, journal::Journal& journal,
                          const lifecycle::TenantModels* models,
                          const reports::ReportOptions& options, const Clock& clock,
                          Router& router);

}  // namespace verdict
