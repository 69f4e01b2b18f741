// GET /v1/cases/{case_id}/report?format=goaml|html: a case's suspicious transaction report as
// goAML XML (escalated cases only) or its printable HTML narrative (any case), role analyst,
// within the caller's tenant (another tenant's case is 404, as an unknown one). Every export is
// journaled before it is answered (admin event "reports.export": the case, the format, the
// caller and the SHA-256 of the bytes), so that a filed report can be shown to be the one the
// engine produced. Reports are produced on the ReportWorker's thread, never an I/O thread; with
// kMaxQueuedReports waiting, another request is answered 429. The CaseStore, Journal,
// TenantModels, Clock and ReportWorker must outlive the router; the handler is thread-safe as
// they are. docs/reports.md.
#pragma once

#include "api/router.h"
#include "cases/case_store.h"
#include "common/clock.h"
#include "engine/report_worker.h"
#include "journal/journal.h"
#include "lifecycle/tenant_models.h"
#include "reports/report_options.h"

namespace verdict {

// Reports waiting for the ReportWorker beyond the one it produces; more are refused with 429.
inline constexpr size_t kMaxQueuedReports = 16;

// `models` (may be null) explains a decision whose record carries no contributions again, with
// the model that decided when it is still loaded. `options` is copied.
void RegisterReportRoutes(cases::CaseStore& cases, journal::Journal& journal,
                          const lifecycle::TenantModels* models,
                          const reports::ReportOptions& options, const Clock& clock,
                          ReportWorker& worker, Router& router);

}  // namespace verdict
