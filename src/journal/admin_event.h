// AdminEvent: an administrative change to journal (a key created or revoked, a policy or model
// activated, a case disposed): who did it, for which tenant, what and to which object.
// Value type; see Journal::RecordAdminEvent.
#pragma once

#include <string>

namespace verdict::journal {

struct AdminEvent {
  std::string tenant;
  std::string principal;     // who: a key id or a client certificate's subject
  std::string action;        // e.g. "keys.create", "models.activate"; required
  std::string object;        // e.g. the key id, "aml/4", a case id
  std::string details_json;  // a JSON object with the particulars (empty: none); never secrets
};

}  // namespace verdict::journal
