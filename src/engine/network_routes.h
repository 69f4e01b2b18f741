// GET /v1/accounts/{account}/network?days=N (role analyst): the account's counterparties over
// the last N days (default 30, at most 90) as a graph, built from the journal's account index
// (cases/account_network.h), within the caller's tenant only. The Journal and Clock must
// outlive the router; the handler is thread-safe as the journal's reads are.
#pragma once

#include <string_view>

#include "api/router.h"
#include "cases/account_network.h"
#include "common/clock.h"
#include "common/json_writer.h"
#include "common/result.h"
#include "journal/journal.h"

namespace verdict {

// The query string: `days` only (1..90); an unknown parameter or a bad value names itself.
Result<int> ParseNetworkDays(std::string_view query);

void WriteAccountNetworkJson(const cases::AccountNetwork& network, JsonWriter& w);

void RegisterNetworkRoutes(const journal::Journal& journal, const Clock& clock, Router& router);

}  // namespace verdict
