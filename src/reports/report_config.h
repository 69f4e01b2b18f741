// ParseReportTables: the configuration's `[reports]` table (with `[reports.reporting_person]`,
// `[reports.location]`, `[reports.transmode_codes]`, `[reports.indicators]` and per-tenant
// `[reports.tenants.<name>]` tables of the same keys) read into ReportOptions and validated at
// start-up: unknown keys, wrong types and malformed values are errors naming the key. Keys a
// goAML report needs may be absent here; the export then fails naming them (CheckGoaml). Kept
// apart from report_options.h so that only the configuration reader includes toml++. Stateless;
// thread-safe.
#pragma once

#include <toml++/toml.h>

#include "common/result.h"
#include "reports/report_options.h"

namespace verdict::reports {

// `node`: the root's "reports" node; null when the configuration has none.
Result<ReportOptions> ParseReportTables(const toml::node* node);

}  // namespace verdict::reports
