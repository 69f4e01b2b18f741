// The stored cases checked against the journal when the store loads them. A case lives in the
// registry column family, which anyone with disk access can edit (a disposition changed, an
// alert closed, a case planted); the journal's chain is tamper-evident. So every analyst change
// is journaled with the SHA-256 of the case as stored after it ("record_sha256"), and at load a
// stored case must match its last journaled change or, if it has none, be exactly the case its
// decision record opens. Stateless functions; thread-safe as the journal's reads are.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "journal/journal.h"

namespace verdict::cases {

// `details_json` (a JSON object) with "record_sha256": the SHA-256 of `stored_case_json`, the
// case as the change stores it.
std::string WithCaseDigest(std::string_view details_json, std::string_view stored_case_json);

// Checks every stored case (registry key, stored text): kDataLoss naming the case when it is
// stored under another's key, differs from its last journaled change, or (never changed) is
// not the case its decision record opens; and naming a case of any tenant of the journal that
// has journaled changes but is not stored. A change journaled without a digest (older data)
// vouches for whatever is stored. Reads each tenant's admin events once and the record of each
// case no analyst has changed.
Status CheckStoredCases(const journal::Journal& journal,
                        const std::vector<std::pair<std::string, std::string>>& entries);

}  // namespace verdict::cases
