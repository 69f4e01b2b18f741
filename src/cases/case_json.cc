#include "cases/case_json.h"

#include <simdjson.h>

#include "common/rfc3339.h"

namespace verdict::cases {
namespace {

void Time(JsonWriter& w, std::string_view key, int64_t us) {
  w.Key(key);
  if (us == 0) {
    w.Null();
  } else {
    w.String(FormatRfc3339Micros(us));
  }
}

Status Bad(std::string_view field, std::string_view what) {
  return InvalidArgument("stored case: " + std::string(field) + " " + std::string(what),
                         std::string(field));
}

Result<std::string> Str(simdjson::dom::element e, std::string_view field) {
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) return Bad(field, "must be a string");
  return std::string(s);
}

Result<int64_t> TimeOf(simdjson::dom::element e, std::string_view field) {
  if (e.is_null()) return int64_t{0};
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) return Bad(field, "must be a time string");
  auto t = ParseRfc3339Micros(s);
  if (!t.ok()) return Bad(field, t.status().message());
  return *t;
}

}  // namespace

void WriteCaseJson(const Case& c, bool full, JsonWriter& w) {
  w.BeginObject()
      .Key("case_id")
      .String(c.case_id)
      .Key("tenant")
      .String(c.tenant)
      .Key("status")
      .String(CaseStatusName(c.status))
      .Key("decision_id")
      .String(c.decision_id)
      .Key("transaction_id")
      .String(c.transaction_id)
      .Key("journal_seq")
      .Uint(c.journal_seq)
      .Key("outcome")
      .String(c.outcome)
      .Key("score")
      .Double(c.score);
  // Absent, not null, for a case whose record carries no risk.
  if (c.risk) w.Key("risk").Double(*c.risk);
  w.Key("typologies").BeginArray();
  for (const std::string& t : c.typologies) w.String(t);
  w.EndArray();
  // Absent when empty: a case stored before cases kept their reasons reads back, and is written
  // again, byte for byte as it was stored (case_ledger.cc compares the bytes).
  if (!c.reasons.empty()) {
    w.Key("reasons").BeginArray();
    for (const CaseReason& r : c.reasons) {
      w.BeginObject().Key("code").String(r.code).Key("message").String(r.message).EndObject();
    }
    w.EndArray();
  }
  w.Key("sender_account")
      .String(c.sender_account)
      .Key("receiver_account")
      .String(c.receiver_account)
      .Key("amount")
      .String(c.amount)
      .Key("currency")
      .String(c.currency);
  Time(w, "transaction_at", c.transaction_at_us);
  Time(w, "opened_at", c.opened_at_us);
  Time(w, "updated_at", c.updated_at_us);
  w.Key("assignee");
  if (c.assignee.empty()) {
    w.Null();
  } else {
    w.String(c.assignee);
  }
  w.Key("disposition");
  if (c.disposition == Disposition::kNone) {
    w.Null();
  } else {
    w.String(DispositionName(c.disposition));
  }
  w.Key("disposition_note").String(c.disposition_note);
  Time(w, "closed_at", c.closed_at_us);
  w.Key("comment_count").Uint(c.comments.size());
  if (full) {
    w.Key("comments").BeginArray();
    for (const CaseComment& m : c.comments) {
      w.BeginObject();
      Time(w, "at", m.at_us);
      w.Key("principal").String(m.principal).Key("text").String(m.text).EndObject();
    }
    w.EndArray().Key("history").BeginArray();
    for (const CaseEvent& e : c.history) {
      w.BeginObject();
      Time(w, "at", e.at_us);
      w.Key("principal")
          .String(e.principal)
          .Key("action")
          .String(e.action)
          .Key("detail")
          .String(e.detail)
          .EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

std::string CaseToJson(const Case& c) {
  std::string out;
  JsonWriter w(out);
  WriteCaseJson(c, /*full=*/true, w);
  return out;
}

namespace {
Result<std::vector<CaseReason>> ReasonsFromJson(simdjson::dom::element value,
                                                std::string_view key) {
  simdjson::dom::array a;
  if (value.get_array().get(a) != simdjson::SUCCESS) return Bad(key, "must be an array");
  std::vector<CaseReason> reasons;
  for (auto item : a) {
    simdjson::dom::object o;
    if (item.get_object().get(o) != simdjson::SUCCESS) return Bad(key, "items must be objects");
    CaseReason r;
    for (auto [k, v] : o) {
      if (k == "code") {
        VERDICT_ASSIGN_OR_RETURN(r.code, Str(v, key));
      } else if (k == "message") {
        VERDICT_ASSIGN_OR_RETURN(r.message, Str(v, key));
      }
    }
    reasons.push_back(std::move(r));
  }
  return reasons;
}
}  // namespace

Result<Case> CaseFromJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(json);
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument("stored case is not a JSON object");
  }
  Case c;
  for (auto [key, value] : obj) {
    if (key == "case_id") {
      VERDICT_ASSIGN_OR_RETURN(c.case_id, Str(value, key));
    } else if (key == "tenant") {
      VERDICT_ASSIGN_OR_RETURN(c.tenant, Str(value, key));
    } else if (key == "status") {
      VERDICT_ASSIGN_OR_RETURN(std::string s, Str(value, key));
      VERDICT_ASSIGN_OR_RETURN(c.status, ParseCaseStatus(s));
    } else if (key == "decision_id") {
      VERDICT_ASSIGN_OR_RETURN(c.decision_id, Str(value, key));
    } else if (key == "transaction_id") {
      VERDICT_ASSIGN_OR_RETURN(c.transaction_id, Str(value, key));
    } else if (key == "journal_seq") {
      if (value.get_uint64().get(c.journal_seq) != simdjson::SUCCESS) {
        return Bad(key, "must be an unsigned integer");
      }
    } else if (key == "outcome") {
      VERDICT_ASSIGN_OR_RETURN(c.outcome, Str(value, key));
    } else if (key == "score") {
      if (value.is_null()) {
        c.score = 0;
      } else if (value.get_double().get(c.score) != simdjson::SUCCESS) {
        return Bad(key, "must be a number");
      }
    } else if (key == "risk") {
      double risk = 0;
      if (value.get_double().get(risk) != simdjson::SUCCESS) return Bad(key, "must be a number");
      c.risk = risk;
    } else if (key == "reasons") {
      VERDICT_ASSIGN_OR_RETURN(c.reasons, ReasonsFromJson(value, key));
    } else if (key == "typologies") {
      simdjson::dom::array a;
      if (value.get_array().get(a) != simdjson::SUCCESS) return Bad(key, "must be an array");
      for (auto t : a) {
        VERDICT_ASSIGN_OR_RETURN(std::string s, Str(t, key));
        c.typologies.push_back(std::move(s));
      }
    } else if (key == "sender_account") {
      VERDICT_ASSIGN_OR_RETURN(c.sender_account, Str(value, key));
    } else if (key == "receiver_account") {
      VERDICT_ASSIGN_OR_RETURN(c.receiver_account, Str(value, key));
    } else if (key == "amount") {
      VERDICT_ASSIGN_OR_RETURN(c.amount, Str(value, key));
    } else if (key == "currency") {
      VERDICT_ASSIGN_OR_RETURN(c.currency, Str(value, key));
    } else if (key == "transaction_at") {
      VERDICT_ASSIGN_OR_RETURN(c.transaction_at_us, TimeOf(value, key));
    } else if (key == "opened_at") {
      VERDICT_ASSIGN_OR_RETURN(c.opened_at_us, TimeOf(value, key));
    } else if (key == "updated_at") {
      VERDICT_ASSIGN_OR_RETURN(c.updated_at_us, TimeOf(value, key));
    } else if (key == "closed_at") {
      VERDICT_ASSIGN_OR_RETURN(c.closed_at_us, TimeOf(value, key));
    } else if (key == "assignee") {
      if (!value.is_null()) {
        VERDICT_ASSIGN_OR_RETURN(c.assignee, Str(value, key));
      }
    } else if (key == "disposition") {
      if (!value.is_null()) {
        VERDICT_ASSIGN_OR_RETURN(std::string s, Str(value, key));
        VERDICT_ASSIGN_OR_RETURN(c.disposition, ParseDisposition(s));
      }
    } else if (key == "disposition_note") {
      VERDICT_ASSIGN_OR_RETURN(c.disposition_note, Str(value, key));
    } else if (key == "comments" || key == "history") {
      simdjson::dom::array a;
      if (value.get_array().get(a) != simdjson::SUCCESS) return Bad(key, "must be an array");
      for (auto item : a) {
        simdjson::dom::object o;
        if (item.get_object().get(o) != simdjson::SUCCESS) return Bad(key, "items must be objects");
        CaseComment m;
        CaseEvent e;
        for (auto [k, v] : o) {
          if (k == "at") {
            VERDICT_ASSIGN_OR_RETURN(m.at_us, TimeOf(v, key));
            e.at_us = m.at_us;
          } else if (k == "principal") {
            VERDICT_ASSIGN_OR_RETURN(m.principal, Str(v, key));
            e.principal = m.principal;
          } else if (k == "text") {
            VERDICT_ASSIGN_OR_RETURN(m.text, Str(v, key));
          } else if (k == "action") {
            VERDICT_ASSIGN_OR_RETURN(e.action, Str(v, key));
          } else if (k == "detail") {
            VERDICT_ASSIGN_OR_RETURN(e.detail, Str(v, key));
          }
        }
        if (key == "comments") {
          c.comments.push_back(std::move(m));
        } else {
          c.history.push_back(std::move(e));
        }
      }
    }
    // comment_count and unknown keys are derived or from newer versions: ignored.
  }
  if (c.case_id.empty()) return Bad("case_id", "is missing");
  return c;
}

}  // namespace verdict::cases
