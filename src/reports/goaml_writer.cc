#include "reports/goaml_writer.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "common/rfc3339.h"
#include "core/bic.h"
#include "reports/markup_text.h"

namespace verdict::reports {
namespace {

// goAML bounds its free-text fields (reason, action, comments) to 4,000 characters, names,
// numbers and short texts to 255.
constexpr size_t kMaxFreeText = 4000;
constexpr size_t kMaxName = 255;

// 1900-01-01T00:00:00Z in UTC microseconds: goAML's earliest date.
constexpr int64_t kFirstGoamlDate = -2'208'988'800'000'000;

// goAML's date-time: "yyyy-mm-ddThh:mm:ss", here always UTC.
std::string GoamlDateTime(int64_t micros) { return FormatRfc3339Micros(micros).substr(0, 19); }

class XmlOut {
 public:
  explicit XmlOut(std::string& out) : out_(out) {}
  void Open(std::string_view name) {
    Indent();
    out_ += "<" + std::string(name) + ">\n";
    ++depth_;
  }
  void Close(std::string_view name) {
    --depth_;
    Indent();
    out_ += "</" + std::string(name) + ">\n";
  }
  void Leaf(std::string_view name, std::string_view text) {
    Indent();
    out_ += "<" + std::string(name) + ">";
    AppendEscaped(out_, text);
    out_ += "</" + std::string(name) + ">\n";
  }
  // Only when given.
  void Optional(std::string_view name, const std::optional<std::string>& text) {
    if (text) Leaf(name, *text);
  }

 private:
  void Indent() { out_.append(static_cast<size_t>(depth_) * 2, ' '); }
  std::string& out_;
  int depth_ = 0;
};

Status Incomplete(std::string_view field, const std::string& message) {
  return Status(StatusCode::kFailedPrecondition, message, "transaction." + std::string(field));
}

Status NotConfigured(const ReportingEntity& entity, const std::string& key,
                     const std::string& why) {
  return Status(StatusCode::kFailedPrecondition,
                "the goAML report of tenant '" + entity.tenant + "' needs the configuration key " +
                    key + ", set in neither [reports.tenants." + entity.tenant +
                    "] nor [reports]: " + why,
                "reports." + key);
}

// The goAML conduction type of the transaction's channel.
Result<std::string> TransmodeCode(const ReportData& data, const ReportingEntity& entity) {
  const ReportingEntitySettings& s = entity.settings;
  if (auto it = s.transmode_codes.find(data.transaction.channel); it != s.transmode_codes.end()) {
    return it->second;
  }
  if (s.default_transmode_code) return *s.default_transmode_code;
  return NotConfigured(
      entity, "default_transmode_code",
      "no conduction type is configured for the channel '" + data.transaction.channel + "'");
}

// The FIU's indicators of the decision's reasons, in the reasons' order, each once; the default
// indicator when no reason has one.
Result<std::vector<std::string>> Indicators(const ReportData& data, const ReportingEntity& entity) {
  std::vector<std::string> out;
  for (const Reason& reason : data.decision.reasons) {
    auto it = entity.settings.indicators.find(reason.code);
    if (it != entity.settings.indicators.end() &&
        std::find(out.begin(), out.end(), it->second) == out.end()) {
      out.push_back(it->second);
    }
  }
  if (out.empty() && entity.settings.default_indicator) {
    out.push_back(*entity.settings.default_indicator);
  }
  if (out.empty()) {
    return NotConfigured(entity, "default_indicator",
                         "none of the decision's reasons has an indicator in [reports.indicators]");
  }
  return out;
}

Status CheckParty(const Party& party, std::string_view side) {
  const std::string s(side);
  if (party.account.empty()) {
    return Incomplete(s + ".account", "goAML needs the " + s + "'s account");
  }
  if (party.bank.empty()) {
    return Incomplete(
        s + ".bank",
        "goAML needs the " + s + "'s institution: the transaction has no " + s + ".bank (BIC)");
  }
  for (const auto& [name, value] :
       {std::pair<std::string_view, const std::string*>{"account", &party.account},
        {"name", &party.name},
        {"bank", &party.bank}}) {
    if (value->size() > kMaxName) {
      return Incomplete(s + "." + std::string(name), "goAML holds at most 255 characters in the " +
                                                         s + "'s " + std::string(name));
    }
  }
  if (party.country.empty()) {
    return Incomplete(s + ".country", "goAML needs the " + s +
                                          "'s country: the transaction has no " + s + ".country");
  }
  return Status::Ok();
}

// A side of the transaction as a goAML account of another institution's client or of the
// reporting bank's own (institution_name from the configuration when its BIC is the bank's).
void WriteAccount(XmlOut& x, std::string_view element, const Party& party,
                  const ReportingEntity& entity) {
  const ReportingEntitySettings& s = entity.settings;
  x.Open(element);
  if (s.institution_swift && s.institution_name && party.bank == *s.institution_swift) {
    x.Leaf("institution_name", *s.institution_name);
  }
  // goAML's choice: a BIC as swift, any other identifier of the institution as its code.
  x.Leaf(ValidateBic(party.bank).ok() ? "swift" : "institution_code", party.bank);
  x.Leaf("account", party.account);
  if (!party.name.empty()) x.Leaf("account_name", party.name);
  x.Close(element);
}

std::string ReasonText(const ReportData& data) {
  std::string text = "Transaction " + data.transaction.transaction_id + " was flagged " +
                     data.case_file.outcome + " by the verdict risk engine";
  if (data.decision.path == DecisionPath::kModel) {
    char score[48];
    std::snprintf(score, sizeof(score), " (model score %.4f)", data.decision.score);
    text += score;
  }
  text += ".";
  for (const Reason& reason : data.decision.reasons) {
    text += " " + reason.code;
    if (!reason.message.empty()) text += ": " + reason.message;
    text += ".";
  }
  if (!data.case_file.disposition_note.empty()) {
    text += " Analyst's finding: " + data.case_file.disposition_note;
  }
  return TruncateChars(text, kMaxFreeText);
}

std::string ActionText(const ReportData& data) {
  const cases::Case& c = data.case_file;
  std::string text = "Case " + c.case_id + " escalated";
  if (!c.assignee.empty()) text += " by " + c.assignee;
  if (c.closed_at_us != 0) text += " on " + FormatRfc3339Micros(c.closed_at_us);
  text += "; the payment was " + std::string(c.outcome == "block" ? "blocked" : "held for review") +
          " by the engine.";
  return TruncateChars(text, kMaxFreeText);
}

std::string CommentsText(const ReportData& data) {
  const JournalProof& p = data.proof;
  return TruncateChars("verdict decision " + data.case_file.decision_id + ", journal record " +
                           std::to_string(p.seq) + ", record hash " + p.record_hash +
                           ", transaction SHA-256 " + p.input_sha256 + ".",
                       kMaxFreeText);
}

}  // namespace

Status CheckEscalated(const cases::Case& c) {
  if (c.disposition == cases::Disposition::kEscalated) return Status::Ok();
  std::string state = std::string(cases::CaseStatusName(c.status));
  if (c.disposition != cases::Disposition::kNone) {
    state += ", disposition " + std::string(cases::DispositionName(c.disposition));
  }
  return Status(StatusCode::kFailedPrecondition,
                "a goAML suspicious transaction report is filed only for a case closed as "
                "escalated; case " +
                    c.case_id + " is " + state + " (format=html gives its narrative)",
                "format");
}

Result<std::string> WriteGoaml(const ReportData& data, const ReportingEntity& entity,
                               int64_t now_us) {
  VERDICT_RETURN_IF_ERROR(CheckEscalated(data.case_file));
  VERDICT_RETURN_IF_ERROR(CheckGoaml(entity));
  const ReportingEntitySettings& s = entity.settings;
  const ReportTransaction& t = data.transaction;
  if (t.currency != *s.currency_code_local) {
    return Incomplete("currency", "the transaction is in " + t.currency +
                                      " and goAML's amount_local must be in the local currency " +
                                      *s.currency_code_local +
                                      "; the engine holds no exchange rate to convert it");
  }
  if (t.transaction_id.size() > kMaxName) {
    return Incomplete("transaction_id",
                      "goAML holds at most 255 characters in a transaction number");
  }
  if (t.timestamp_us < kFirstGoamlDate) {
    return Incomplete("timestamp", "goAML takes no date before 1900-01-01");
  }
  VERDICT_RETURN_IF_ERROR(CheckParty(t.sender, "sender"));
  VERDICT_RETURN_IF_ERROR(CheckParty(t.receiver, "receiver"));
  VERDICT_ASSIGN_OR_RETURN(std::string transmode, TransmodeCode(data, entity));
  VERDICT_ASSIGN_OR_RETURN(std::vector<std::string> indicators, Indicators(data, entity));

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  XmlOut x(out);
  x.Open("report");
  x.Leaf("rentity_id", std::to_string(*s.rentity_id));
  x.Optional("rentity_branch", s.rentity_branch);
  x.Leaf("submission_code", "E");  // electronic
  x.Leaf("report_code", "STR");
  x.Leaf("entity_reference", data.case_file.case_id);
  x.Leaf("submission_date", GoamlDateTime(now_us));
  x.Leaf("currency_code_local", *s.currency_code_local);
  x.Open("reporting_person");
  x.Leaf("first_name", *s.person_first_name);
  x.Leaf("last_name", *s.person_last_name);
  x.Optional("email", s.person_email);
  x.Optional("occupation", s.person_occupation);
  x.Close("reporting_person");
  if (s.location_address) {
    x.Open("location");
    x.Leaf("address_type", *s.location_address_type);
    x.Leaf("address", *s.location_address);
    x.Leaf("city", *s.location_city);
    x.Optional("zip", s.location_zip);
    x.Leaf("country_code", *s.location_country_code);
    x.Optional("state", s.location_state);
    x.Close("location");
  }
  x.Leaf("reason", ReasonText(data));
  x.Leaf("action", ActionText(data));

  x.Open("transaction");
  x.Leaf("transactionnumber", t.transaction_id);
  x.Leaf("internal_ref_number", data.case_file.decision_id);
  if (!t.remittance.empty()) {
    x.Leaf("transaction_description", TruncateChars(t.remittance, kMaxFreeText));
  }
  x.Leaf("date_transaction", GoamlDateTime(t.timestamp_us));
  x.Leaf("transmode_code", transmode);
  if (!t.channel.empty()) x.Leaf("transmode_comment", TruncateChars(t.channel, kMaxName));
  x.Leaf("amount_local", t.amount);
  x.Open("t_from");
  x.Leaf("from_funds_code", *s.funds_code);
  WriteAccount(x, "from_account", t.sender, entity);
  x.Leaf("from_country", t.sender.country);
  x.Close("t_from");
  x.Open("t_to");
  x.Leaf("to_funds_code", *s.funds_code);
  WriteAccount(x, "to_account", t.receiver, entity);
  x.Leaf("to_country", t.receiver.country);
  x.Close("t_to");
  x.Leaf("comments", CommentsText(data));
  x.Close("transaction");

  x.Open("report_indicators");
  for (const std::string& indicator : indicators) x.Leaf("indicator", indicator);
  x.Close("report_indicators");
  x.Close("report");
  return out;
}

std::string_view GoamlErrorCode(const Status& status) {
  if (status.field() == "format") return kCaseNotEscalated;
  if (status.field().rfind("reports.", 0) == 0) return kReportNotConfigured;
  return kReportIncomplete;
}

}  // namespace verdict::reports
