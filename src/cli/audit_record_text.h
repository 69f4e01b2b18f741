// The human-readable form of one journal record for `verdict audit show`: the decision's
// identity, outcome, reasons and contributions (each with its human name and unit from
// features/feature_catalog.h), then every feature by name, one per line
// ("name = value"). Stateless free function; thread-safe. `--json` prints RecordToJson instead.
#pragma once

#include <string>

#include "journal/record.h"

namespace verdict {

std::string AuditRecordText(const journal::JournalRecord& record);

}  // namespace verdict
