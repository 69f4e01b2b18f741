// WebhookEvent: what one journal record raises for webhook endpoints (docs/webhooks.md). Every
// event is derived from a journaled record, so the journal is the outbox: a decision with outcome
// review or block raises decision.flagged and case.opened (the case store opens its case from the
// same record); the admin events cases.dispose, drift.alert and models.rollback raise
// case.disposed, drift.alert and model.rolled_back. The delivery id is derived from the record's
// hash and the event name, so a redelivery carries the same id and two journals never share one.
// Value type; the functions are stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "journal/record.h"

namespace verdict::webhooks {

struct WebhookEvent {
  std::string name;         // e.g. "decision.flagged" (kEventNames)
  std::string tenant;       // the record's tenant
  std::string delivery_id;  // 32 lowercase hex characters; the same for every redelivery
  uint64_t journal_seq = 0;
  std::string body;  // the JSON document POSTed
};

// The events `record` raises, in a fixed order; none for an allow decision, a history record or
// any other admin event.
std::vector<WebhookEvent> EventsFromRecord(const journal::JournalRecord& record);

}  // namespace verdict::webhooks
