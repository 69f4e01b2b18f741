#include "reports/html_writer.h"

#include <cstdio>
#include <initializer_list>
#include <string_view>

#include "common/rfc3339.h"
#include "reports/markup_text.h"

namespace verdict::reports {
namespace {

// Screen and print styles. Print: A4 margins, each major section on its own page, table rows
// kept whole, links and backgrounds that printers drop not relied on.
constexpr std::string_view kStyle = R"(
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10.5pt; color: #111;
       max-width: 190mm; margin: 12mm auto; line-height: 1.35; }
h1 { font-size: 17pt; margin: 0 0 2mm; }
h2 { font-size: 12.5pt; border-bottom: 1px solid #444; padding-bottom: 1mm; margin-top: 7mm; }
.sub { color: #444; margin: 0 0 4mm; }
.notice { border: 1px solid #a00; padding: 2mm 3mm; color: #700; }
table { border-collapse: collapse; width: 100%; margin: 2mm 0; }
th, td { border: 1px solid #999; padding: 1mm 2mm; text-align: left; vertical-align: top; }
th { background: #eee; width: 32%; }
table.rows th { width: auto; }
td { overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .hash { font-family: "DejaVu Sans Mono", monospace; font-size: 8.5pt;
              overflow-wrap: anywhere; }
footer { margin-top: 8mm; font-size: 8.5pt; color: #444; }
@media print {
  @page { size: A4; margin: 15mm 14mm 18mm; }
  body { margin: 0; max-width: none; font-size: 10pt; }
  section.page { break-before: page; page-break-before: always; }
  h2 { break-after: avoid; page-break-after: avoid; }
  tr, .keep { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  th { background: none; }
}
)";

std::string Time(int64_t micros) { return micros == 0 ? "" : FormatRfc3339Micros(micros); }

std::string Number(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

class Html {
 public:
  explicit Html(std::string& out) : out_(out) {}
  Html& Raw(std::string_view markup) {
    out_ += markup;
    return *this;
  }
  Html& Text(std::string_view text) {
    AppendEscaped(out_, text);
    return *this;
  }
  Html& Element(std::string_view tag, std::string_view text) {
    out_ += "<" + std::string(tag) + ">";
    AppendEscaped(out_, text);
    out_ += "</" + std::string(tag.substr(0, tag.find(' '))) + ">";
    return *this;
  }
  // One row of a two-column fact table; nothing when `value` is empty.
  Html& Fact(std::string_view label, std::string_view value, bool code = false) {
    if (value.empty()) return *this;
    out_ += "<tr><th>";
    AppendEscaped(out_, label);
    out_ += code ? "</th><td class=\"hash\">" : "</th><td>";
    AppendEscaped(out_, value);
    out_ += "</td></tr>\n";
    return *this;
  }
  Html& Head(std::initializer_list<std::string_view> names) {
    out_ += "<thead><tr>";
    for (std::string_view name : names) Element("th", name);
    out_ += "</tr></thead>\n<tbody>\n";
    return *this;
  }

 private:
  std::string& out_;
};

void WriteEntity(Html& h, const ReportingEntity& entity) {
  const ReportingEntitySettings& s = entity.settings;
  h.Raw("<section><h2>Reporting entity</h2>\n<table>\n");
  h.Fact("Institution", s.institution_name.value_or(""));
  h.Fact("BIC", s.institution_swift.value_or(""));
  h.Fact("goAML reporting entity id", s.rentity_id ? std::to_string(*s.rentity_id) : "");
  h.Fact("Branch", s.rentity_branch.value_or(""));
  std::string person = s.person_first_name.value_or("");
  if (s.person_last_name) person += (person.empty() ? "" : " ") + *s.person_last_name;
  if (s.person_occupation) person += ", " + *s.person_occupation;
  h.Fact("Reporting person", person);
  h.Fact("Contact", s.person_email.value_or(""));
  h.Fact("Tenant", entity.tenant);
  h.Raw("</table></section>\n");
}

void WriteSummary(Html& h, const ReportData& d) {
  const cases::Case& c = d.case_file;
  h.Raw("<section><h2>Summary</h2>\n<table>\n");
  h.Fact("Case", c.case_id, true);
  h.Fact("Engine outcome", c.outcome);
  if (d.decision.path == DecisionPath::kModel) {
    h.Fact("Model score", Number("%.4f", d.decision.score));
  }
  std::string typologies;
  for (const std::string& t : c.typologies) typologies += (typologies.empty() ? "" : ", ") + t;
  h.Fact("Typologies", typologies);
  h.Fact("Case status", cases::CaseStatusName(c.status));
  h.Fact("Disposition", cases::DispositionName(c.disposition));
  h.Fact("Assignee", c.assignee);
  h.Fact("Analyst's finding", c.disposition_note);
  h.Fact("Opened", Time(c.opened_at_us));
  h.Fact("Closed", Time(c.closed_at_us));
  h.Raw("</table></section>\n");
}

void WriteTransaction(Html& h, const ReportData& d) {
  const ReportTransaction& t = d.transaction;
  h.Raw("<section><h2>Transaction</h2>\n<table>\n");
  h.Fact("Transaction id", t.transaction_id, true);
  h.Fact("Time (UTC)", Time(t.timestamp_us));
  h.Fact("Amount", t.amount + " " + t.currency);
  h.Fact("Channel", t.channel);
  h.Fact("Type", t.type);
  h.Fact("Remittance information", t.remittance);
  h.Fact("Decision id", d.case_file.decision_id, true);
  h.Fact("Decided at (UTC)", Time(d.decided_at_us));
  h.Fact("Decision path", DecisionPathName(d.decision.path));
  if (!d.decision.model.name.empty()) {
    h.Fact("Model", d.decision.model.name + " version " + d.decision.model.version);
  }
  if (!d.decision.policy.version.empty()) h.Fact("Policy version", d.decision.policy.version);
  h.Raw("</table>\n<h2>Parties</h2>\n<table class=\"rows\">\n");
  h.Head({"Role", "Name", "Account", "Institution (BIC)", "Country"});
  for (const auto& [role, party] : {std::pair<std::string_view, const Party*>{"Sender", &t.sender},
                                    {"Receiver", &t.receiver}}) {
    h.Raw("<tr>").Element("td", role).Element("td", party->name).Element("td", party->account);
    h.Element("td", party->bank).Element("td", party->country).Raw("</tr>\n");
  }
  h.Raw("</tbody></table></section>\n");
}

void WriteReasons(Html& h, const ReportData& d) {
  h.Raw("<section><h2>Reasons</h2>\n");
  if (d.decision.reasons.empty()) {
    h.Element("p", "The decision carries no reason codes.");
  } else {
    h.Raw("<table class=\"rows\">\n").Head({"Code", "Rule", "What was seen"});
    for (const Reason& r : d.decision.reasons) {
      h.Raw("<tr>").Element("td", r.code).Element("td", r.rule).Element("td", r.message);
      h.Raw("</tr>\n");
    }
    h.Raw("</tbody></table>\n");
  }
  h.Raw("<h2>Feature contributions</h2>\n");
  if (d.decision.contributions.empty()) {
    h.Element("p",
              "None: the decision was made by rules alone, or the model that decided is no "
              "longer loaded to explain it.");
  } else {
    h.Element("p", d.contributions_source == "journal"
                       ? "As journaled with the decision (SHAP contributions to the model's "
                         "margin; positive values raise the risk)."
                       : "Recomputed from the journaled features by the very model that decided "
                         "(SHAP contributions to the model's margin; positive values raise the "
                         "risk).");
    h.Raw("<table class=\"rows\">\n").Head({"Feature", "Value", "Contribution"});
    for (const Contribution& c : d.decision.contributions) {
      h.Raw("<tr>").Element("td", c.feature);
      h.Raw("<td class=\"num\">").Text(Number("%.6g", c.value)).Raw("</td>");
      h.Raw("<td class=\"num\">").Text(Number("%+.4f", c.contribution)).Raw("</td></tr>\n");
    }
    h.Raw("</tbody></table>\n");
  }
  h.Raw("</section>\n");
}

void WriteWork(Html& h, const ReportData& d) {
  const cases::Case& c = d.case_file;
  h.Raw("<section class=\"page\"><h2>Analyst's work</h2>\n");
  h.Raw("<table class=\"rows\">\n").Head({"When (UTC)", "Who", "Action", "Detail"});
  for (const cases::CaseEvent& e : c.history) {
    h.Raw("<tr>").Element("td", Time(e.at_us)).Element("td", e.principal);
    h.Element("td", e.action).Element("td", e.detail).Raw("</tr>\n");
  }
  h.Raw("</tbody></table>\n<h2>Comments</h2>\n");
  if (c.comments.empty()) h.Element("p", "No comments.");
  for (const cases::CaseComment& comment : c.comments) {
    h.Raw("<div class=\"keep\"><p><strong>");
    h.Text(comment.principal).Raw("</strong>, ").Text(Time(comment.at_us)).Raw("</p>");
    h.Element("p", comment.text).Raw("</div>\n");
  }
  h.Raw("<h2>Account activity</h2>\n");
  h.Element("p", "The latest journaled decisions touching account " + c.sender_account +
                     ", newest first, for context.");
  h.Raw("<table class=\"rows\">\n")
      .Head({"Time (UTC)", "Transaction", "Direction", "Counterparty", "Amount", "Outcome",
             "Reasons"});
  for (const ActivityRow& row : d.activity) {
    std::string reasons;
    for (const std::string& r : row.reasons) reasons += (reasons.empty() ? "" : ", ") + r;
    h.Raw("<tr>").Element("td", Time(row.timestamp_us)).Element("td", row.transaction_id);
    h.Element("td", row.direction).Element("td", row.counterparty);
    h.Raw("<td class=\"num\">").Text(row.amount + " " + row.currency).Raw("</td>");
    h.Element("td", row.outcome).Element("td", reasons).Raw("</tr>\n");
  }
  h.Raw("</tbody></table></section>\n");
}

void WriteProof(Html& h, const ReportData& d) {
  const JournalProof& p = d.proof;
  h.Raw("<section class=\"page\"><h2>Journal proof</h2>\n");
  h.Element("p",
            "The decision is a record of verdict's append-only journal, a hash chain whose "
            "Merkle roots are signed (Ed25519) in checkpoints. The inclusion proof below shows "
            "that this record, byte for byte, is in the tree named (signed when a checkpoint "
            "covers the record); the command \"verdict audit verify\" checks the whole "
            "journal.");
  h.Raw("<table>\n");
  h.Fact("Journal record", std::to_string(p.seq));
  h.Fact("Record hash (SHA-256)", p.record_hash, true);
  h.Fact("Transaction SHA-256 (as journaled)", p.input_sha256, true);
  switch (p.anchor) {
    case ProofAnchor::kCheckpoint:
      h.Fact("Proved against", "the latest signed checkpoint");
      break;
    case ProofAnchor::kHead:
      h.Fact("Proved against",
             "the journal's durable head (not yet covered by a signed checkpoint)");
      break;
    case ProofAnchor::kNone:
      h.Fact("Proved against",
             "nothing here: the journal is too large to prove on request; run \"verdict audit "
             "verify\"");
      break;
  }
  if (p.anchor != ProofAnchor::kNone) {
    h.Fact("Tree size", std::to_string(p.tree_size));
    h.Fact("Merkle root", p.root, true);
    h.Fact("Inclusion proof verified", p.verified ? "yes" : "NO");
  }
  if (p.checkpoint_size != 0) {
    h.Fact("Latest checkpoint", "tree size " + std::to_string(p.checkpoint_size) + ", signed " +
                                    Time(p.checkpoint_time_us));
    h.Fact("Checkpoint signature valid", p.signature_valid ? "yes" : "NO");
  } else {
    h.Fact("Latest checkpoint", "none yet");
  }
  h.Fact("Journal public key (Ed25519)", p.public_key, true);
  h.Raw("</table>\n");
  if (!p.path.empty()) {
    h.Raw("<h2>Audit path</h2>\n<table class=\"rows\">\n").Head({"Level", "Sibling hash"});
    for (size_t i = 0; i < p.path.size(); ++i) {
      h.Raw("<tr>").Element("td", std::to_string(i)).Raw("<td class=\"hash\">").Text(p.path[i]);
      h.Raw("</td></tr>\n");
    }
    h.Raw("</tbody></table>\n");
  }
  h.Raw("</section>\n");
}

}  // namespace

std::string WriteHtml(const ReportData& data, const ReportingEntity& entity, int64_t now_us) {
  const bool escalated = data.case_file.disposition == cases::Disposition::kEscalated;
  const std::string title = escalated ? "Suspicious transaction report" : "Case narrative";
  std::string out;
  Html h(out);
  h.Raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  h.Raw("<meta name=\"generator\" content=\"verdict\">\n");
  h.Element("title", title + " — case " + data.case_file.case_id).Raw("\n");
  h.Raw("<style>").Raw(kStyle).Raw("</style>\n</head>\n<body>\n<header>\n");
  h.Element("h1", title).Raw("\n");
  h.Raw("<p class=\"sub\">")
      .Text("Case " + data.case_file.case_id + " · produced " + Time(now_us) + " (UTC)");
  h.Raw("</p>\n");
  if (!escalated) {
    h.Raw("<p class=\"notice\">")
        .Text("Not a suspicious transaction report: the case is " +
              std::string(cases::CaseStatusName(data.case_file.status)) +
              (data.case_file.disposition == cases::Disposition::kNone
                   ? std::string()
                   : ", disposition " +
                         std::string(cases::DispositionName(data.case_file.disposition))) +
              ". A report is filed only for a case closed as escalated.")
        .Raw("</p>\n");
  }
  h.Raw("</header>\n");
  WriteEntity(h, entity);
  WriteSummary(h, data);
  WriteTransaction(h, data);
  WriteReasons(h, data);
  WriteWork(h, data);
  WriteProof(h, data);
  h.Raw("<footer>")
      .Text(
          "Produced by the verdict risk engine. The SHA-256 of this document is journaled with "
          "the export (admin event reports.export), so that the copy filed can be shown to be the "
          "one the engine produced.");
  h.Raw("</footer>\n</body>\n</html>\n");
  return out;
}

}  // namespace verdict::reports
