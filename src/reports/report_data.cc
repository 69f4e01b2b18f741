#include "reports/report_data.h"

#include <simdjson.h>

#include <utility>

#include "common/rfc3339.h"

namespace verdict::reports {
namespace {

// Empty when the member is absent or not a string (never throws: the result is checked).
std::string StringAt(simdjson::simdjson_result<simdjson::dom::element> element) {
  std::string_view s;
  if (element.get_string().get(s) != simdjson::SUCCESS) return {};
  return std::string(s);
}

Party PartyAt(simdjson::dom::object obj, std::string_view key) {
  Party party;
  simdjson::dom::object side;
  if (obj[key].get_object().get(side) != simdjson::SUCCESS) return party;
  party.account = StringAt(side["account"]);
  party.bank = StringAt(side["bank"]);
  party.country = StringAt(side["country"]);
  party.name = StringAt(side["name"]);
  return party;
}

ActivityRow ActivityOf(const journal::JournalRecord& r, std::string_view account) {
  ActivityRow row;
  row.transaction_id = r.decision.transaction_id;
  row.timestamp_us = r.timestamp_us;
  row.outcome = std::string(OutcomeName(r.decision.outcome));
  for (const Reason& reason : r.decision.reasons) row.reasons.push_back(reason.code);
  auto txn = ParseJournaledTransaction(r.canonical_input);
  if (txn.ok()) {
    const bool outgoing = txn->sender.account == account;
    row.direction = outgoing ? "out" : "in";
    row.counterparty = outgoing ? txn->receiver.account : txn->sender.account;
    row.amount = txn->amount;
    row.currency = txn->currency;
  }
  return row;
}

}  // namespace

Result<ReportTransaction> ParseJournaledTransaction(std::string_view canonical_json) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(canonical_json);
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) {
    return Status(StatusCode::kDataLoss, "the journaled transaction is not a JSON object");
  }
  ReportTransaction t;
  t.transaction_id = StringAt(obj["transaction_id"]);
  const std::string timestamp = StringAt(obj["timestamp"]);
  auto at = ParseRfc3339Micros(timestamp);
  if (t.transaction_id.empty() || !at.ok()) {
    return Status(StatusCode::kDataLoss,
                  "the journaled transaction lacks its transaction_id or timestamp");
  }
  t.timestamp_us = *at;
  t.amount = StringAt(obj["amount"]);
  t.currency = StringAt(obj["currency"]);
  t.channel = StringAt(obj["channel"]);
  t.type = StringAt(obj["type"]);
  t.remittance = StringAt(obj["remittance"]);
  t.sender = PartyAt(obj, "sender");
  t.receiver = PartyAt(obj, "receiver");
  return t;
}

Result<ReportData> GatherReportData(const journal::Journal& journal, const cases::Case& c,
                                    const Explainer& explain) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<journal::JournalRecord> record,
                           journal.ReadRecord(c.journal_seq));
  // The record is the case's by construction; the tenant and id checks are a second wall.
  if (!record || record->kind != journal::RecordKind::kDecision || record->tenant != c.tenant ||
      record->decision.decision_id.ToString() != c.decision_id) {
    return Status(StatusCode::kDataLoss,
                  "the journal record of case " + c.case_id + " cannot be read", "case_id");
  }
  ReportData data;
  data.case_file = c;
  auto txn = ParseJournaledTransaction(record->canonical_input);
  if (!txn.ok()) {
    return Status(StatusCode::kDataLoss, "case " + c.case_id + ": " + txn.status().message(),
                  "case_id");
  }
  data.transaction = std::move(txn).value();
  data.decision = record->decision;
  data.decided_at_us = record->decided_at_us;
  if (!data.decision.contributions.empty()) {
    data.contributions_source = "journal";
  } else if (explain) {
    data.decision.contributions = explain(*record);
    if (!data.decision.contributions.empty()) data.contributions_source = "recomputed";
  }
  VERDICT_ASSIGN_OR_RETURN(data.proof, ProveRecord(journal, *record));
  if (!c.sender_account.empty()) {
    VERDICT_ASSIGN_OR_RETURN(std::vector<journal::JournalRecord> recent,
                             journal.ListByAccount(c.tenant, c.sender_account, kActivityRows));
    for (const journal::JournalRecord& r : recent) {
      if (r.kind == journal::RecordKind::kDecision) {
        data.activity.push_back(ActivityOf(r, c.sender_account));
      }
    }
  }
  return data;
}

}  // namespace verdict::reports
