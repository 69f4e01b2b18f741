// The journal's admin events read as the ledger of what the registry holds: a registry object
// (a tenant's policy, a model's index entry) is trusted at load only as far as its last
// journaled change vouches for it, since the registry is a plain column family that anyone
// with disk access can edit while the chain of admin events is tamper-evident. Stateless
// functions over a Journal; thread-safe as the journal's reads are.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "journal/journal.h"

namespace verdict {

// Calls `visit` with the tenant's admin events, newest first, until it returns false.
Status VisitAdminEvents(const journal::Journal& journal, std::string_view tenant,
                        const std::function<bool(const journal::AdminAction&)>& visit);

// The tenant's newest admin event for which `matches` holds; nullopt when none does.
Result<std::optional<journal::AdminAction>> NewestAdminEvent(
    const journal::Journal& journal, std::string_view tenant,
    const std::function<bool(const journal::AdminAction&)>& matches);

// The "sha256" details of the tenant's journaled `action` events on `object`, newest first; an
// empty string for an event journaled before such digests were recorded.
Result<std::vector<std::string>> JournaledDigests(const journal::Journal& journal,
                                                  std::string_view tenant, std::string_view action,
                                                  std::string_view object);

// lifecycle::RegistryOptions::journaled_sha256s for a registry whose registrations are journaled
// as `tenant`'s "models.register" admin events. `journal` must outlive the function.
std::function<Result<std::vector<std::string>>(std::string_view object)>
JournaledModelRegistrations(const journal::Journal& journal, std::string tenant);

// The string member `name` of an admin event's details (a JSON object); empty when the details
// are not an object or have no such string.
std::string AdminDetail(std::string_view details_json, std::string_view name);

}  // namespace verdict
