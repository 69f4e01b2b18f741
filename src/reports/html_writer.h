// The printable narrative of a case (HTML, one self-contained page set for print: a @media print
// stylesheet, page breaks between sections, no scripts): the transaction, its parties, the
// engine's reasons and feature contributions, the analyst's work, the account's recent activity
// and the journal proof. For an escalated case it is the suspicious transaction report's
// narrative; for any other it says it is not a report. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "reports/report_data.h"
#include "reports/report_options.h"

namespace verdict::reports {

// `entity`: the tenant's reporting entity (what of it is configured is shown); `now_us`: when
// the narrative is produced.
std::string WriteHtml(const ReportData& data, const ReportingEntity& entity, int64_t now_us);

}  // namespace verdict::reports
