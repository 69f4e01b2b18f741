#include "engine/case_routes.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "api/decision_json.h"
#include "api/error_response.h"
#include "api/http_status.h"
#include "cases/case_json.h"
#include "common/json_writer.h"
#include "common/rfc3339.h"
#include "engine/record_explanation.h"
#include "features/feature_catalog.h"
#include "features/feature_vector.h"
#include "journal/digest.h"
#include "journal/merkle.h"

namespace verdict {
namespace {

// How many of the account's latest records the case view shows as its timeline.
constexpr size_t kActivityLimit = 25;
// ?proof=inclusion reads every record up to the checkpoint on the I/O thread (which then serves
// nothing else meanwhile); refuse it beyond this many records.
constexpr uint64_t kMaxInclusionTreeSize = 100'000;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits "a=1&b=2" and calls fn(key, decoded value) for each pair; stops at the first error.
template <typename Fn>
Status ForEachQueryParam(std::string_view query, Fn fn) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    const std::string_view raw =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    VERDICT_ASSIGN_OR_RETURN(std::string value, DecodeQueryValue(raw, key.substr(0, 40)));
    VERDICT_RETURN_IF_ERROR(fn(key, value));
  }
  return Status::Ok();
}

// A bound of the opened-at range: an RFC 3339 time, or a YYYY-MM-DD date (UTC midnight; as
// the exclusive upper bound `to`, the midnight after it, so that the day is included).
Result<int64_t> ParseBound(std::string_view value, std::string_view field, bool upper) {
  constexpr int64_t kDayMicros = int64_t{86'400} * 1'000'000;
  const bool date_only = value.size() == 10 && value[4] == '-' && value[7] == '-';
  auto t = ParseRfc3339Micros(date_only ? std::string(value) + "T00:00:00Z" : std::string(value));
  if (!t.ok() || *t <= 0) {
    return InvalidArgument(std::string(field) +
                               " must be an RFC 3339 time (2026-01-31T09:00:00Z) or a date "
                               "(2026-01-31) after 1970, not '" +
                               std::string(value.substr(0, 64)) + "'",
                           std::string(field));
  }
  return date_only && upper ? *t + kDayMicros : *t;
}

// The JSON object of a POST body, or an error that says what the route expects.
Result<simdjson::dom::object> ParseBody(simdjson::dom::parser& parser,
                                        const simdjson::padded_string& body,
                                        std::string_view expected) {
  simdjson::dom::object obj;
  if (parser.parse(body).get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument("body must be a JSON object " + std::string(expected));
  }
  return obj;
}

Status UnknownField(std::string_view key) {
  const std::string name(key.substr(0, 40));
  return InvalidArgument("unknown field '" + name + "'", name);
}

Result<std::string> StringField(simdjson::dom::element value, std::string_view key) {
  std::string_view s;
  if (value.get_string().get(s) != simdjson::SUCCESS) {
    return InvalidArgument(std::string(key) + " must be a string", std::string(key));
  }
  return std::string(s);
}

// The string fields of a case action's JSON object body, by name (the last of a repeated
// name wins). A field outside `allowed`, or one that is not a string, is an error naming it.
Result<std::map<std::string, std::string, std::less<>>> StringFields(
    std::string_view body, std::string_view expected,
    std::initializer_list<std::string_view> allowed) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(body);
  VERDICT_ASSIGN_OR_RETURN(simdjson::dom::object obj, ParseBody(parser, padded, expected));
  std::map<std::string, std::string, std::less<>> fields;
  for (auto [key, value] : obj) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) return UnknownField(key);
    VERDICT_ASSIGN_OR_RETURN(std::string s, StringField(value, key));
    fields.insert_or_assign(std::string(key), std::move(s));
  }
  return fields;
}

// One record of the account's timeline: when, how much, which way, and what was decided.
void WriteActivity(const journal::JournalRecord& r, std::string_view account, JsonWriter& w) {
  std::string amount, currency, sender, receiver;
  simdjson::dom::parser parser;
  simdjson::padded_string text(r.canonical_input);
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj) == simdjson::SUCCESS) {
    std::string_view s;
    if (obj["amount"].get_string().get(s) == simdjson::SUCCESS) amount = s;
    if (obj["currency"].get_string().get(s) == simdjson::SUCCESS) currency = s;
    if (obj["sender"]["account"].get_string().get(s) == simdjson::SUCCESS) sender = s;
    if (obj["receiver"]["account"].get_string().get(s) == simdjson::SUCCESS) receiver = s;
  }
  const bool outgoing = sender == account;
  w.BeginObject()
      .Key("decision_id")
      .String(r.decision.decision_id.ToString())
      .Key("transaction_id")
      .String(r.decision.transaction_id)
      .Key("transaction_at")
      .String(FormatRfc3339Micros(r.timestamp_us))
      .Key("decided_at")
      .String(FormatRfc3339Micros(r.decided_at_us))
      .Key("direction")
      .String(outgoing ? "out" : "in")
      .Key("counterparty")
      .String(outgoing ? receiver : sender)
      .Key("amount")
      .String(amount)
      .Key("currency")
      .String(currency)
      .Key("outcome")
      .String(OutcomeName(r.decision.outcome))
      .Key("score")
      .Double(r.decision.score)
      .Key("reasons")
      .BeginArray();
  for (const Reason& reason : r.decision.reasons) w.String(reason.code);
  w.EndArray().EndObject();
}

// The record's standing in the journal: durable with its hash; covered (or not yet) by the
// latest signed checkpoint, whose signature is checked; with `inclusion`, the Merkle inclusion
// proof of the record in that checkpoint's tree, verified against the signed root.
Status WriteProof(const journal::Journal& journal, const journal::JournalRecord& record,
                  bool inclusion, JsonWriter& w) {
  VERDICT_ASSIGN_OR_RETURN(auto checkpoint, journal.LatestCheckpoint());
  w.BeginObject()
      .Key("seq")
      .Uint(record.seq)
      .Key("record_hash")
      .String(journal::ToHex(record.record_hash))
      .Key("durable")
      .Bool(record.seq <= journal.durable_sequence());
  w.Key("checkpoint");
  const bool covered = checkpoint && checkpoint->tree_size >= record.seq;
  if (!checkpoint) {
    w.Null();
  } else {
    w.BeginObject()
        .Key("tree_size")
        .Uint(checkpoint->tree_size)
        .Key("root")
        .String(journal::ToHex(checkpoint->root))
        .Key("time")
        .String(FormatRfc3339Micros(checkpoint->time_us))
        .Key("signature_valid")
        .Bool(journal::VerifyCheckpointSignature(*checkpoint, journal.public_key()))
        .EndObject();
  }
  w.Key("covered").Bool(covered);
  w.Key("status").String(covered ? "checkpointed" : "awaiting_checkpoint");
  if (inclusion) {
    w.Key("inclusion");
    if (!covered) {
      w.Null();
    } else if (checkpoint->tree_size > kMaxInclusionTreeSize) {
      return Status(StatusCode::kFailedPrecondition,
                    "the journal is too large for an inclusion proof here; use `verdict audit "
                    "verify`",
                    "proof");
    } else {
      VERDICT_ASSIGN_OR_RETURN(journal::InclusionProof p,
                               journal.ProveInclusion(record.seq, checkpoint->tree_size));
      const bool verified =
          p.leaf_hash == journal::MerkleLeafHash(journal::AsBytes(record.record_hash)) &&
          p.root == checkpoint->root &&
          journal::VerifyMerkleInclusion(p.leaf_hash, p.seq - 1, p.tree_size, p.path,
                                         checkpoint->root);
      w.BeginObject().Key("verified").Bool(verified).Key("path").BeginArray();
      for (const journal::Digest& d : p.path) w.String(journal::ToHex(d));
      w.EndArray().EndObject();
    }
  }
  w.EndObject();
  return Status::Ok();
}

// GET /v1/cases/{id}: the case with its decision, transaction, the account's recent activity
// and the proof status of its journal record.
Result<std::string> CaseView(const cases::CaseStore& store, const journal::Journal& journal,
                             const lifecycle::TenantModels* models, std::string_view tenant,
                             std::string_view case_id, std::string_view query) {
  bool inclusion = false;
  VERDICT_RETURN_IF_ERROR(
      ForEachQueryParam(query, [&](std::string_view key, const std::string& value) {
        if (key != "proof") return UnknownField(key);
        if (value != "inclusion") {
          return InvalidArgument("proof must be 'inclusion'", "proof");
        }
        inclusion = true;
        return Status::Ok();
      }));
  VERDICT_ASSIGN_OR_RETURN(cases::Case c, store.Get(tenant, case_id));
  VERDICT_ASSIGN_OR_RETURN(auto record, store.ReadRecord(c.journal_seq));
  // The record is the case's by construction; the tenant check is a second wall.
  if (record && record->tenant != c.tenant) record.reset();
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("case");
  cases::WriteCaseJson(c, /*full=*/true, w);
  // "journal": the decision as journaled carried them; "recomputed": from the record's
  // features with the model that decided; "none": rules decided, or that model is gone.
  std::string_view contributions_source = "none";
  if (record && !record->decision.contributions.empty()) {
    contributions_source = "journal";
  } else if (record && record->decision.outcome != Outcome::kAllow) {
    record->decision.contributions = ExplainJournaledRecord(models, *record);
    if (!record->decision.contributions.empty()) contributions_source = "recomputed";
  }
  w.Key("decision");
  if (record) {
    WriteDecisionJson(record->decision, w);
  } else {
    w.Null();
  }
  w.Key("contributions_source").String(contributions_source);
  // The human names of the features the decision's explanations name, from the one catalog
  // (features/feature_catalog.h) that `verdict audit show` uses too.
  w.Key("feature_labels").BeginObject();
  if (record) {
    std::set<std::string, std::less<>> named;
    for (const auto* list :
         {&record->decision.contributions, &record->decision.anomaly_contributions}) {
      for (const Contribution& c : *list) {
        auto label = FindFeatureLabel(c.feature);
        if (!label || !named.insert(c.feature).second) continue;
        w.Key(c.feature)
            .BeginObject()
            .Key("label")
            .String(label->label)
            .Key("unit")
            .String(label->unit)
            .EndObject();
      }
    }
  }
  w.EndObject();
  w.Key("transaction");
  if (record && !record->canonical_input.empty()) {
    w.Raw(record->canonical_input);
  } else {
    w.Null();
  }
  w.Key("proof");
  if (record) {
    VERDICT_RETURN_IF_ERROR(WriteProof(journal, *record, inclusion, w));
  } else {
    w.Null();
  }
  w.Key("activity").BeginObject().Key("account").String(c.sender_account);
  w.Key("records").BeginArray();
  if (!c.sender_account.empty()) {
    VERDICT_ASSIGN_OR_RETURN(auto recent,
                             journal.ListByAccount(c.tenant, c.sender_account, kActivityLimit));
    for (const journal::JournalRecord& r : recent) {
      if (r.kind == journal::RecordKind::kDecision) WriteActivity(r, c.sender_account, w);
    }
  }
  w.EndArray().EndObject().EndObject();
  return out;
}

HttpResponse CaseResponse(const Result<cases::Case>& c) {
  if (!c.ok()) return ErrorResponse(c.status());
  HttpResponse response;
  JsonWriter w(response.body);
  cases::WriteCaseJson(*c, /*full=*/true, w);
  return response;
}

// The caller's principal as the case keeps it (a key id; never empty).
std::string Principal(const HttpRequest& request) {
  return request.auth.principal.empty() ? std::string("anonymous") : request.auth.principal;
}

// POST /v1/cases:assign: {"case_ids": [...], "assignee"?}.
HttpResponse BulkAssign(cases::CaseStore& store, const HttpRequest& request) {
  const std::string principal = Principal(request);
  auto parsed = ParseBulkAssign(request.body, principal);
  if (!parsed.ok()) return ErrorResponse(parsed.status());
  const std::vector<cases::AssignResult> results =
      store.AssignMany(request.auth.tenant, parsed->case_ids, principal, parsed->assignee);
  size_t assigned = 0, unchanged = 0, refused = 0;
  HttpResponse response;
  JsonWriter w(response.body);
  w.BeginObject().Key("assignee").String(parsed->assignee).Key("results").BeginArray();
  for (const cases::AssignResult& r : results) {
    w.BeginObject().Key("case_id").String(r.case_id).Key("result");
    if (!r.status.ok()) {
      ++refused;
      // The error body's inner object (ErrorBody in api.yaml), as the one-by-one route
      // would answer it.
      w.String("refused")
          .Key("error")
          .BeginObject()
          .Key("code")
          .String(HttpErrorOf(r.status).code)
          .Key("message")
          .String(r.status.message());
      if (!r.status.field().empty()) w.Key("field").String(r.status.field());
      w.EndObject();
    } else {
      ++(r.changed ? assigned : unchanged);
      w.String(r.changed ? "assigned" : "unchanged").Key("case");
      cases::WriteCaseJson(*r.c, /*full=*/false, w);
    }
    w.EndObject();
  }
  w.EndArray()
      .Key("assigned")
      .Uint(assigned)
      .Key("unchanged")
      .Uint(unchanged)
      .Key("refused")
      .Uint(refused)
      .EndObject();
  return response;
}

// GET /v1/whoami.
HttpResponse WhoAmI(const HttpRequest& request) {
  HttpResponse response;
  JsonWriter w(response.body);
  w.BeginObject()
      .Key("principal")
      .String(Principal(request))
      .Key("tenant")
      .String(request.auth.tenant)
      .Key("roles")
      .BeginArray();
  for (Role role : {Role::kScorer, Role::kAnalyst, Role::kAdmin, Role::kAuditor}) {
    if ((request.auth.roles & static_cast<uint32_t>(role)) != 0) w.String(RoleName(role));
  }
  w.EndArray().EndObject();
  return response;
}

}  // namespace

Result<std::string> DecodeQueryValue(std::string_view value, std::string_view field) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      const bool complete = i + 2 < value.size();
      const int hi = complete ? HexDigit(value[i + 1]) : -1;
      const int lo = complete ? HexDigit(value[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return InvalidArgument("query parameter " + std::string(field) +
                                   ": malformed percent-escape at position " + std::to_string(i),
                               std::string(field));
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<cases::CaseQuery> ParseCaseQuery(std::string_view query, std::string_view caller) {
  cases::CaseQuery out;
  VERDICT_RETURN_IF_ERROR(ForEachQueryParam(
      query, [&out, caller](std::string_view key, const std::string& value) -> Status {
        if (key == "status") {
          if (value.empty()) return Status::Ok();  // "status=": any
          VERDICT_ASSIGN_OR_RETURN(out.status, cases::ParseCaseStatus(value));
        } else if (key == "typology") {
          out.typology = value;
        } else if (key == "account") {
          out.account = value;
        } else if (key == "assignee") {
          if (value.empty()) return Status::Ok();  // "assignee=": any
          if (value == "none") {
            out.assignee = "";
          } else if (value == "me") {
            out.assignee = std::string(caller);
          } else if (value.size() > cases::kMaxPrincipalBytes) {
            return InvalidArgument("assignee must be me, none or a principal of at most 256 bytes",
                                   "assignee");
          } else {
            out.assignee = value;
          }
        } else if (key == "from") {
          if (value.empty()) return Status::Ok();
          VERDICT_ASSIGN_OR_RETURN(out.opened_from_us, ParseBound(value, "from", false));
        } else if (key == "to") {
          if (value.empty()) return Status::Ok();
          VERDICT_ASSIGN_OR_RETURN(out.opened_to_us, ParseBound(value, "to", true));
        } else if (key == "cursor") {
          out.cursor = value;
        } else if (key == "sort") {
          if (value.empty()) return Status::Ok();
          VERDICT_ASSIGN_OR_RETURN(out.sort, cases::ParseCaseSort(value));
        } else if (key == "limit") {
          size_t n = 0;
          auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
          if (ec != std::errc() || end != value.data() + value.size() || n < 1 ||
              n > cases::kMaxPageSize) {
            return InvalidArgument(
                "limit must be an integer from 1 to " + std::to_string(cases::kMaxPageSize),
                "limit");
          }
          out.limit = n;
        } else {
          return InvalidArgument(
              "unknown query parameter '" + std::string(key.substr(0, 40)) +
                  "'; use status, typology, account, assignee, from, to, limit, cursor or sort",
              std::string(key.substr(0, 40)));
        }
        return Status::Ok();
      }));
  if (out.opened_from_us != 0 && out.opened_to_us != 0 && out.opened_to_us <= out.opened_from_us) {
    return InvalidArgument("to must be later than from", "to");
  }
  return out;
}

Result<BulkAssignRequest> ParseBulkAssign(std::string_view body, std::string_view caller) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(body);
  VERDICT_ASSIGN_OR_RETURN(
      simdjson::dom::object obj,
      ParseBody(parser, padded, "with \"case_ids\" and an optional \"assignee\""));
  BulkAssignRequest out;
  out.assignee = std::string(caller);
  bool have_ids = false;
  for (auto [key, value] : obj) {
    if (key == "assignee") {
      VERDICT_ASSIGN_OR_RETURN(out.assignee, StringField(value, key));
    } else if (key == "case_ids") {
      simdjson::dom::array ids;
      if (value.get_array().get(ids) != simdjson::SUCCESS) {
        return InvalidArgument("case_ids must be an array of case ids", "case_ids");
      }
      have_ids = true;
      out.case_ids.clear();
      std::set<std::string, std::less<>> seen;
      for (simdjson::dom::element id : ids) {
        std::string_view s;
        if (id.get_string().get(s) != simdjson::SUCCESS || s.empty()) {
          return InvalidArgument("case_ids must hold non-empty strings", "case_ids");
        }
        if (out.case_ids.size() >= cases::kMaxBulkAssign) {
          return InvalidArgument(
              "case_ids holds more than " + std::to_string(cases::kMaxBulkAssign) + " ids",
              "case_ids");
        }
        if (!seen.emplace(s).second) {
          return InvalidArgument("case_ids names " + std::string(s.substr(0, 64)) + " twice",
                                 "case_ids");
        }
        out.case_ids.emplace_back(s);
      }
    } else {
      return UnknownField(key);
    }
  }
  // Checked here as cases::Assign checks it, so that a bad assignee refuses the whole call
  // rather than every case one by one.
  const bool printable = std::all_of(out.assignee.begin(), out.assignee.end(),
                                     [](char ch) { return ch >= 0x20 && ch < 0x7f; });
  if (out.assignee.empty() || out.assignee.size() > cases::kMaxPrincipalBytes || !printable) {
    return InvalidArgument("assignee must be 1 to 256 printable ASCII characters", "assignee");
  }
  if (!have_ids) return InvalidArgument("case_ids is required", "case_ids");
  if (out.case_ids.empty()) return InvalidArgument("case_ids must not be empty", "case_ids");
  return out;
}

void RegisterCaseRoutes(cases::CaseStore& store, const journal::Journal& journal,
                        const lifecycle::TenantModels* models, Router& router) {
  const RouteOptions read{{}, Role::kAnalyst};
  const RouteOptions write{{"application/json"}, Role::kAnalyst};

  router.Add(
      "GET", "/v1/cases",
      [&store](HttpRequest&& request, Responder respond) {
        auto query = ParseCaseQuery(request.query, Principal(request));
        if (!query.ok()) return respond(ErrorResponse(query.status()));
        auto page = store.List(request.auth.tenant, *query);
        if (!page.ok()) return respond(ErrorResponse(page.status()));
        HttpResponse response;
        JsonWriter w(response.body);
        w.BeginObject().Key("cases").BeginArray();
        for (const cases::Case& c : page->cases) cases::WriteCaseJson(c, /*full=*/false, w);
        w.EndArray().Key("next_cursor");
        if (page->next_cursor.empty()) {
          w.Null();
        } else {
          w.String(page->next_cursor);
        }
        w.Key("total").Uint(page->total).Key("sort").String(cases::CaseSortName(query->sort));
        w.EndObject();
        respond(std::move(response));
      },
      read);

  router.Add(
      "GET", "/v1/cases/{case_id}",
      [&store, &journal, models](HttpRequest&& request, Responder respond) {
        auto view = CaseView(store, journal, models, request.auth.tenant,
                             request.PathParam("case_id"), request.query);
        if (!view.ok()) return respond(ErrorResponse(view.status()));
        HttpResponse response;
        response.body = std::move(view).value();
        respond(std::move(response));
      },
      read);

  // {"assignee": "..."}; without one, the caller takes the case.
  router.Add(
      "POST", "/v1/cases/{case_id}:assign",
      [&store](HttpRequest&& request, Responder respond) {
        const std::string principal = Principal(request);
        std::string assignee = principal;
        if (!request.body.empty()) {
          auto fields = StringFields(request.body, "with an optional \"assignee\"", {"assignee"});
          if (!fields.ok()) return respond(ErrorResponse(fields.status()));
          if (auto it = fields->find("assignee"); it != fields->end()) assignee = it->second;
        }
        respond(CaseResponse(
            store.Assign(request.auth.tenant, request.PathParam("case_id"), principal, assignee)));
      },
      write);

  // {"case_ids": [...], "assignee"?}: each case assigned as by :assign, one journaled change
  // per case that changes; a refusal answers in that case's result and does not stop the
  // others (not all-or-nothing: each assignment stands alone, as it would one by one).
  router.Add(
      "POST", "/v1/cases:assign",
      [&store](HttpRequest&& request, Responder respond) { respond(BulkAssign(store, request)); },
      write);

  // Who the caller is, for the console's header: principal, tenant and roles.
  router.Add(
      "GET", "/v1/whoami",
      [](HttpRequest&& request, Responder respond) { respond(WhoAmI(request)); },
      RouteOptions{{}, Role::kScorer | Role::kAnalyst | Role::kAdmin | Role::kAuditor});

  // {"text": "..."}
  router.Add(
      "POST", "/v1/cases/{case_id}:comment",
      [&store](HttpRequest&& request, Responder respond) {
        auto fields = StringFields(request.body, "with \"text\"", {"text"});
        if (!fields.ok()) return respond(ErrorResponse(fields.status()));
        auto text = fields->find("text");
        if (text == fields->end()) {
          return respond(ErrorResponse(InvalidArgument("text is required", "text")));
        }
        respond(CaseResponse(store.Comment(request.auth.tenant, request.PathParam("case_id"),
                                           Principal(request), text->second)));
      },
      write);

  // {"disposition": "false_positive", "note": "..."}
  router.Add(
      "POST", "/v1/cases/{case_id}:dispose",
      [&store](HttpRequest&& request, Responder respond) {
        auto fields = StringFields(request.body, "with \"disposition\" and an optional \"note\"",
                                   {"disposition", "note"});
        if (!fields.ok()) return respond(ErrorResponse(fields.status()));
        auto named = fields->find("disposition");
        if (named == fields->end()) {
          return respond(ErrorResponse(InvalidArgument(
              "disposition is required: true_positive, false_positive, escalated or "
              "closed_no_action",
              "disposition")));
        }
        auto disposition = cases::ParseDisposition(named->second);
        if (!disposition.ok()) return respond(ErrorResponse(disposition.status()));
        auto note = fields->find("note");
        respond(CaseResponse(store.Dispose(request.auth.tenant, request.PathParam("case_id"),
                                           Principal(request), *disposition,
                                           note == fields->end() ? std::string() : note->second)));
      },
      write);
}

}  // namespace verdict
