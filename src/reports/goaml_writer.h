// The goAML suspicious transaction report (report_code STR) of an escalated case: UNODC goAML's
// XML layout (the `report` root, the reporting entity, the transaction with its two sides as
// accounts, the report indicators), written from ReportData and the tenant's ReportingEntity.
// The file validates against src/reports/goaml_str.xsd, our own schema of the documented goAML
// structure for what this writer produces (docs/reports.md). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cases/case.h"
#include "common/result.h"
#include "reports/report_data.h"
#include "reports/report_options.h"

namespace verdict::reports {

// Stable error codes of a goAML export that cannot be made (the route answers them with 409).
inline constexpr std::string_view kCaseNotEscalated = "case_not_escalated";
inline constexpr std::string_view kReportNotConfigured = "report_not_configured";
inline constexpr std::string_view kReportIncomplete = "report_incomplete";

// Ok for a case closed with the disposition "escalated"; otherwise kFailedPrecondition (field
// "format") saying that an STR is filed only for escalated cases.
Status CheckEscalated(const cases::Case& c);

// The goAML XML (UTF-8) of the case, submitted at `now_us`. kFailedPrecondition when a
// configuration key the report needs is missing (field "reports.<key>") or the transaction lacks
// what goAML requires (field "transaction.<path>", e.g. "transaction.sender.country"); never an
// invalid file.
Result<std::string> WriteGoaml(const ReportData& data, const ReportingEntity& entity,
                               int64_t now_us);

// Which stable code an error of CheckEscalated or WriteGoaml answers with.
std::string_view GoamlErrorCode(const Status& status);

}  // namespace verdict::reports
