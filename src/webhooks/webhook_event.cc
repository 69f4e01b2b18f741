#include "webhooks/webhook_event.h"

#include <algorithm>
#include <string_view>

#include "common/json_writer.h"
#include "common/rfc3339.h"
#include "common/sha256.h"
#include "webhooks/webhook_options.h"

namespace verdict::webhooks {
namespace {

std::string DeliveryId(const journal::JournalRecord& record, std::string_view name) {
  const std::string_view hash(reinterpret_cast<const char*>(record.record_hash.data()),
                              record.record_hash.size());
  const Sha256Digest digest = Sha256Of(hash, "\n", name);
  return HexOf(std::string_view(reinterpret_cast<const char*>(digest.data()), 16));
}

// The envelope every event shares; `data` writes the event's own object.
template <typename Data>
WebhookEvent MakeEvent(const journal::JournalRecord& record, std::string_view name, Data data) {
  WebhookEvent event;
  event.name = std::string(name);
  event.tenant = record.tenant;
  event.delivery_id = DeliveryId(record, name);
  event.journal_seq = record.seq;
  JsonWriter w(event.body);
  w.BeginObject()
      .Key("id")
      .String(event.delivery_id)
      .Key("type")
      .String(name)
      .Key("created_at")
      .String(FormatRfc3339Micros(record.decided_at_us))
      .Key("tenant")
      .String(record.tenant)
      .Key("journal_seq")
      .Uint(record.seq)
      .Key("data");
  w.BeginObject();
  data(w);
  w.EndObject().EndObject();
  return event;
}

void AppendDecisionEvents(const journal::JournalRecord& record, std::vector<WebhookEvent>& out) {
  const Decision& d = record.decision;
  if (d.outcome == Outcome::kAllow) return;
  const std::string decision_id = d.decision_id.ToString();
  out.push_back(MakeEvent(record, kDecisionFlagged, [&](JsonWriter& w) {
    w.Key("decision_id").String(decision_id).Key("transaction_id").String(d.transaction_id);
    w.Key("outcome").String(OutcomeName(d.outcome)).Key("score").Double(d.score);
    w.Key("reasons").BeginArray();
    for (const Reason& r : d.reasons) {
      w.BeginObject().Key("code").String(r.code).Key("rule").String(r.rule).EndObject();
    }
    w.EndArray();
  }));
  // The case store opens the case from this record, under the decision id (CaseFromRecord).
  out.push_back(MakeEvent(record, kCaseOpened, [&](JsonWriter& w) {
    w.Key("case_id").String(decision_id).Key("decision_id").String(decision_id);
    w.Key("transaction_id").String(d.transaction_id);
    w.Key("outcome").String(OutcomeName(d.outcome)).Key("score").Double(d.score);
    w.Key("typologies").BeginArray();
    std::vector<std::string_view> seen;
    for (const Reason& r : d.reasons) {
      if (std::find(seen.begin(), seen.end(), r.code) != seen.end()) continue;
      seen.push_back(r.code);
      w.String(r.code);
    }
    w.EndArray();
  }));
}

// An admin event's object, who did it and its journaled particulars (a JSON object).
void WriteAdminData(const journal::JournalRecord& record, std::string_view object_key,
                    JsonWriter& w) {
  w.Key(object_key).String(record.admin.object).Key("by").String(record.principal);
  const std::string& details = record.admin.details_json;
  // Written by the engine's JsonWriter and covered by the chain; anything else is left out.
  const bool object = !details.empty() && details.front() == '{' && details.back() == '}';
  w.Key("details").Raw(object ? std::string_view(details) : std::string_view("{}"));
}

}  // namespace

std::vector<WebhookEvent> EventsFromRecord(const journal::JournalRecord& record) {
  std::vector<WebhookEvent> events;
  if (record.kind == journal::RecordKind::kDecision) {
    AppendDecisionEvents(record, events);
  } else if (record.kind == journal::RecordKind::kAdminEvent) {
    const std::string& action = record.admin.action;
    if (action == "cases.dispose") {
      events.push_back(MakeEvent(record, kCaseDisposed,
                                 [&](JsonWriter& w) { WriteAdminData(record, "case_id", w); }));
    } else if (action == "drift.alert") {
      events.push_back(MakeEvent(record, kDriftAlert,
                                 [&](JsonWriter& w) { WriteAdminData(record, "model", w); }));
    } else if (action == "models.rollback") {
      events.push_back(MakeEvent(record, kModelRolledBack,
                                 [&](JsonWriter& w) { WriteAdminData(record, "model", w); }));
    }
  }
  return events;
}

}  // namespace verdict::webhooks
