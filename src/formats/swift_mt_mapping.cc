// MT103, MT202 and MT202COV block 4 fields: format rules and the mapping to a Transaction.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "common/rfc3339.h"
#include "core/bic.h"
#include "formats/iban.h"
#include "formats/message_text.h"
#include "formats/swift_mt.h"

namespace verdict {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

// The SWIFT "x" character set.
bool IsSwiftX(char c) {
  if ((c >= 'a' && c <= 'z') || IsUpper(c) || IsDigit(c)) return true;
  switch (c) {
    case '/':
    case '-':
    case '?':
    case ':':
    case '(':
    case ')':
    case '.':
    case ',':
    case '\'':
    case '+':
    case ' ':
      return true;
    default:
      return false;
  }
}

Status FieldError(const MtField& f, size_t line_index, const std::string& what) {
  return InvalidArgument(
      ":" + f.tag + ": line " + std::to_string(f.line + line_index) + ": " + what,
      ":" + f.tag + ":");
}

// Lines of `f`: at most `max_lines` of at most `max_chars` SWIFT x characters.
Status CheckLines(const MtField& f, size_t max_lines, size_t max_chars) {
  if (f.lines.size() > max_lines) {
    return FieldError(f, max_lines, "at most " + std::to_string(max_lines) + " lines");
  }
  for (size_t i = 0; i < f.lines.size(); ++i) {
    const std::string& l = f.lines[i];
    if (l.size() > max_chars) {
      return FieldError(f, i, "line longer than " + std::to_string(max_chars) + " characters");
    }
    for (char c : l) {
      if (!IsSwiftX(c)) {
        const std::string shown = (c >= 0x20 && c < 0x7F) ? std::string(1, c) : "?";
        return FieldError(f, i, "character '" + shown + "' is not in the SWIFT x character set");
      }
    }
  }
  if (f.lines.empty() || (f.lines.size() == 1 && f.lines[0].empty())) {
    return FieldError(f, 0, "field is empty");
  }
  return Status::Ok();
}

std::string JoinLines(const std::vector<std::string>& lines, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    if (!out.empty()) out += ' ';
    out += lines[i];
  }
  return out;
}

// 16x references (:20:, :21:): no leading or trailing '/', no "//".
Result<std::string> Reference(const MtField& f) {
  VERDICT_RETURN_IF_ERROR(CheckLines(f, 1, 16));
  const std::string& r = f.lines[0];
  if (r.front() == '/' || r.back() == '/' || r.find("//") != std::string::npos) {
    return FieldError(f, 0,
                      "reference " + Quote(r) + " must not start or end with '/' or contain '//'");
  }
  Status s = CheckIdentifier(r, 16, "reference");
  if (!s.ok()) return FieldError(f, 0, s.message());
  return r;
}

// 15d: digits with one decimal comma, at most 15 characters, no more fraction digits than
// the currency has.
Result<Money> SwiftAmount(const MtField& f, size_t line, std::string_view text,
                          const CurrencyInfo& currency) {
  const size_t comma = text.find(',');
  bool ok = !text.empty() && text.size() <= 15 && comma != std::string_view::npos && comma > 0 &&
            text.find(',', comma + 1) == std::string_view::npos;
  for (char c : text) ok = ok && (IsDigit(c) || c == ',');
  if (!ok) {
    std::string hint;
    if (std::count(text.begin(), text.end(), '.') == 1 &&
        text.find(',') == std::string_view::npos) {
      hint = " (SWIFT amounts use a decimal comma, e.g. 1000,50)";
    }
    return FieldError(f, line, "amount " + Quote(text) + " is not a number" + hint);
  }
  const std::string_view frac = text.substr(comma + 1);
  if (frac.size() > currency.minor_digits) {
    return FieldError(f, line,
                      "amount " + Quote(text) + " has more decimals than " +
                          std::string(currency.code) + " allows (" +
                          std::to_string(currency.minor_digits) + ")");
  }
  std::string decimal(text.substr(0, comma));
  if (!frac.empty()) decimal += "." + std::string(frac);
  Result<Money> money = Money::Parse(decimal, currency);
  if (!money.ok())
    return FieldError(f, line, "amount " + Quote(text) + ": " + money.status().message());
  return *money;
}

Result<const CurrencyInfo*> SwiftCurrency(const MtField& f, std::string_view code) {
  const CurrencyInfo* currency = FindCurrency(code);
  if (currency == nullptr) {
    return FieldError(f, 0, "currency " + Quote(code) + " is not an ISO 4217 currency code");
  }
  return currency;
}

// 3!a15d (:33B:, :71F:, :71G:).
Result<Money> CurrencyAmount(const MtField& f, bool allow_zero) {
  VERDICT_RETURN_IF_ERROR(CheckLines(f, 1, 18));
  const std::string& v = f.lines[0];
  if (v.size() < 5) return FieldError(f, 0, Quote(v) + " is not a currency and an amount");
  VERDICT_ASSIGN_OR_RETURN(const CurrencyInfo* currency, SwiftCurrency(f, v.substr(0, 3)));
  VERDICT_ASSIGN_OR_RETURN(Money m, SwiftAmount(f, 0, std::string_view(v).substr(3), *currency));
  if (!allow_zero && m.minor_units() <= 0) return FieldError(f, 0, "amount must be positive");
  return m;
}

struct ValueDateAmount {
  std::string date;  // YYYY-MM-DD
  int64_t days = 0;
  Money amount;
};

// :32A: 6!n3!a15d.
Result<ValueDateAmount> Field32A(const MtField& f) {
  VERDICT_RETURN_IF_ERROR(CheckLines(f, 1, 24));
  const std::string& v = f.lines[0];
  ValueDateAmount out;
  if (v.size() < 11 || !std::all_of(v.begin(), v.begin() + 6, IsDigit)) {
    return FieldError(f, 0, "value date " + Quote(v.substr(0, 6)) + " is not YYMMDD");
  }
  const int yy = (v[0] - '0') * 10 + (v[1] - '0');
  out.date = std::string(yy < 80 ? "20" : "19") + v.substr(0, 2) + "-" + v.substr(2, 2) + "-" +
             v.substr(4, 2);
  Status d = CheckIsoDate(out.date, &out.days);
  if (!d.ok()) return FieldError(f, 0, "value date " + Quote(v.substr(0, 6)) + " does not exist");
  VERDICT_ASSIGN_OR_RETURN(const CurrencyInfo* currency, SwiftCurrency(f, v.substr(6, 3)));
  VERDICT_ASSIGN_OR_RETURN(out.amount, SwiftAmount(f, 0, std::string_view(v).substr(9), *currency));
  if (out.amount.minor_units() <= 0) return FieldError(f, 0, "amount must be positive");
  return out;
}

struct TimeIndication {
  std::string code;  // SNDTIME, RNCTIME, CLSTIME, TILTIME, FROTIME, REJTIME, ...
  // The local time given, converted to UTC, as an offset from the value date's midnight UTC
  // (negative or past a day when the offset moves it to another date).
  int64_t utc_offset_from_midnight_us = 0;
};

// :13C: /8c/4!n1!x4!n, e.g. "/SNDTIME/1245+0100": a code, the local time HHMM and its offset
// from UTC.
Result<TimeIndication> Field13C(const MtField& f) {
  VERDICT_RETURN_IF_ERROR(CheckLines(f, 1, 18));
  const std::string& v = f.lines[0];
  const size_t second_slash = v.size() > 1 ? v.find('/', 1) : std::string::npos;
  if (v.front() != '/' || second_slash == std::string::npos || second_slash < 2 ||
      second_slash > 9 || v.size() != second_slash + 10) {
    return FieldError(
        f, 0,
        "time indication " + Quote(v) + " is not /CODE/HHMM+HHMM (e.g. " + "/SNDTIME/1245+0100)");
  }
  TimeIndication out;
  out.code = v.substr(1, second_slash - 1);
  const std::string_view time = std::string_view(v).substr(second_slash + 1, 4);
  const char sign = v[second_slash + 5];
  const std::string_view offset = std::string_view(v).substr(second_slash + 6, 4);
  if (!std::all_of(time.begin(), time.end(), IsDigit) ||
      !std::all_of(offset.begin(), offset.end(), IsDigit) || (sign != '+' && sign != '-')) {
    return FieldError(f, 0, "time indication " + Quote(v) + " is not /CODE/HHMM+HHMM");
  }
  auto two = [](std::string_view d, size_t at) { return (d[at] - '0') * 10 + (d[at + 1] - '0'); };
  const int hours = two(time, 0), minutes = two(time, 2);
  const int offset_hours = two(offset, 0), offset_minutes = two(offset, 2);
  if (hours > 23 || minutes > 59) {
    return FieldError(f, 0, "time " + Quote(time) + " in " + Quote(v) + " is not HHMM");
  }
  if (offset_hours > 14 || offset_minutes > 59) {
    return FieldError(f, 0, "UTC offset " + Quote(offset) + " in " + Quote(v) + " is not HHMM");
  }
  const int64_t local_minutes = hours * 60 + minutes;
  const int64_t offset_total = (sign == '+' ? 1 : -1) * (offset_hours * 60 + offset_minutes);
  out.utc_offset_from_midnight_us = (local_minutes - offset_total) * 60 * kMicrosPerSecond;
  return out;
}

struct MtParty {
  std::string account;
  std::string bic;
  std::string name;
  std::string country;
};

// "/34x" or "/D/34x" ([/1!a][/34x]) as an account line.
Result<std::string> AccountLine(const MtField& f, size_t line, std::string_view text) {
  std::string_view acct = text.substr(1);
  if (acct.size() >= 2 && (acct[0] == 'C' || acct[0] == 'D') && acct[1] == '/') {
    acct.remove_prefix(2);
  }
  if (acct.starts_with("/")) acct.remove_prefix(1);  // "//FW123" clearing codes
  Status s = CheckIdentifier(acct, 34, "account");
  if (!s.ok()) return FieldError(f, line, s.message());
  if (acct.size() >= 15 && IsUpper(acct[0]) && IsUpper(acct[1]) && IsDigit(acct[2]) &&
      IsDigit(acct[3]) && IbanLength(acct.substr(0, 2)) != 0) {
    Status iban = ValidateIban(acct);  // a value shaped like an IBAN must be one
    if (!iban.ok()) return FieldError(f, line, iban.message());
  }
  return std::string(acct);
}

Result<std::string> BicLine(const MtField& f, size_t line, std::string_view text) {
  Status s = ValidateBic(text);
  if (!s.ok()) return FieldError(f, line, s.message());
  std::string bic(text);
  if (bic.size() == 11 && bic.ends_with("XXX")) bic.resize(8);
  return bic;
}

// Options A (account + BIC), B (account + location), C (account), D (account + name and
// address), F (party identifier + numbered lines), K / no letter (account + name and address).
Result<MtParty> PartyField(const MtField& f) {
  const char option = f.tag.size() == 3 ? f.tag[2] : ' ';
  const size_t max_lines = option == 'F'                                     ? 5
                           : option == 'A' || option == 'C' || option == 'B' ? 2
                                                                             : 5;
  VERDICT_RETURN_IF_ERROR(CheckLines(f, max_lines, 35));
  MtParty p;
  size_t next = 0;
  const std::string& first = f.lines[0];
  if (first.starts_with("/")) {
    VERDICT_ASSIGN_OR_RETURN(p.account, AccountLine(f, 0, first));
    next = 1;
  } else if (option == 'F') {
    // 4!a/2!a/27x party identifier, e.g. "CUST/US/BANKNAME/123" or "NIDN/DE/12345".
    if (first.size() < 9 || first[4] != '/' || first[7] != '/' ||
        !std::all_of(first.begin(), first.begin() + 4, IsUpper)) {
      return FieldError(f, 0, "first line must be /account or a party identifier CODE/CC/id");
    }
    std::string id = first;
    std::replace(id.begin(), id.end(), ' ', '_');
    Status s = CheckIdentifier(id, 34, "party identifier");
    if (!s.ok()) return FieldError(f, 0, s.message());
    p.account = id;
    next = 1;
  } else if (option == 'C') {
    return FieldError(f, 0, "option C is /account");
  }
  if (option == 'A') {
    if (next >= f.lines.size()) return FieldError(f, next, "BIC is missing");
    VERDICT_ASSIGN_OR_RETURN(p.bic, BicLine(f, next, f.lines[next]));
    if (next + 1 < f.lines.size())
      return FieldError(f, next + 1, "option A has only [/account] and a BIC");
    return p;
  }
  if (option == 'F') {
    for (size_t i = next; i < f.lines.size(); ++i) {
      const std::string& l = f.lines[i];
      if (l.size() < 3 || !IsDigit(l[0]) || l[1] != '/' || l[0] < '1' || l[0] > '8') {
        return FieldError(f, i, "option F lines are numbered 1/ to 8/, not " + Quote(l));
      }
      const std::string rest = l.substr(2);
      if (l[0] == '1') {
        p.name += (p.name.empty() ? "" : " ") + rest;
      } else if (l[0] == '3' && p.country.empty()) {
        const std::string cc = rest.substr(0, 2);
        if (!IsCountryCode(cc) || (rest.size() > 2 && rest[2] != '/')) {
          return FieldError(f, i, "line 3/ must start with an ISO country code: " + Quote(l));
        }
        p.country = cc;
      }
    }
    if (p.name.empty()) return FieldError(f, next, "option F needs a 1/ name line");
    return p;
  }
  // B, D, K and no option: the remaining lines are name (first) and address.
  if (next < f.lines.size()) p.name = f.lines[next];
  return p;
}

struct TagRule {
  std::string_view tag;
  bool in_103;
  bool in_202;    // sequence A of MT202 and MT202COV
  bool in_cov_b;  // sequence B of MT202COV
};

constexpr TagRule kTags[] = {
    {"20", true, true, false},   {"21", false, true, false},  {"13C", true, true, false},
    {"23B", true, false, false}, {"23E", true, false, false}, {"26T", true, false, false},
    {"32A", true, true, false},  {"33B", true, false, true},  {"36", true, false, false},
    {"50A", true, false, true},  {"50F", true, false, true},  {"50K", true, false, true},
    {"51A", true, false, false}, {"52A", true, true, true},   {"52D", true, true, true},
    {"53A", true, true, false},  {"53B", true, true, false},  {"53D", true, true, false},
    {"54A", true, true, false},  {"54B", true, true, false},  {"54D", true, true, false},
    {"55A", true, false, false}, {"55B", true, false, false}, {"55D", true, false, false},
    {"56A", true, true, true},   {"56C", true, false, true},  {"56D", true, true, true},
    {"57A", true, true, true},   {"57B", true, true, true},   {"57C", true, false, true},
    {"57D", true, true, true},   {"58A", false, true, false}, {"58D", false, true, false},
    {"59", true, false, true},   {"59A", true, false, true},  {"59F", true, false, true},
    {"70", true, false, true},   {"71A", true, false, false}, {"71F", true, false, false},
    {"71G", true, false, false}, {"72", true, true, true},    {"77B", true, false, false},
};

// Repeatable tags; every other tag may appear once per sequence.
bool IsRepeatable(std::string_view tag) { return tag == "13C" || tag == "23E" || tag == "71F"; }

// The letter-less family of a tag ("50K" → "50a").
std::string Family(std::string_view tag) { return std::string(tag.substr(0, 2)) + "a"; }

class Sequence {
 public:
  explicit Sequence(std::string name) : name_(std::move(name)) {}
  Status Add(const MtField& f) {
    // Party and institution fields (5xa) exist once per family, whatever the option.
    const bool family = f.tag[0] == '5';
    for (const MtField* e : fields_) {
      if (IsRepeatable(f.tag)) break;
      const bool same = family ? e->tag[0] == f.tag[0] && e->tag[1] == f.tag[1] : e->tag == f.tag;
      if (same) {
        return FieldError(
            f, 0, "field " + (family ? Family(f.tag) : f.tag) + " appears more than once" + name_);
      }
    }
    fields_.push_back(&f);
    return Status::Ok();
  }
  const MtField* Find(std::string_view family) const {  // "50" finds 50A/50F/50K
    for (const MtField* f : fields_) {
      if (f->tag[0] == family[0] && f->tag[1] == family[1]) return f;
    }
    return nullptr;
  }
  std::vector<const MtField*> All(std::string_view tag) const {
    std::vector<const MtField*> out;
    for (const MtField* f : fields_) {
      if (f->tag == tag) out.push_back(f);
    }
    return out;
  }

 private:
  std::string name_;
  std::vector<const MtField*> fields_;
};

Status Missing(const MtMessage& m, std::string_view tag, const std::string& type) {
  return InvalidArgument(":" + std::string(tag) + ": line " + std::to_string(m.text_end_line) +
                             ": field is required in " + type,
                         ":" + std::string(tag) + ":");
}

Status AddAgent(const Sequence& seq, std::string_view family, std::string_view role,
                PaymentInfo* info) {
  const MtField* f = seq.Find(family);
  if (f == nullptr) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(MtParty p, PartyField(*f));
  info->agents.push_back(AgentRef{std::string(role), p.bic, p.name});
  return Status::Ok();
}

// Block 3's {119:COV}: a cover payment.
bool HasCoverFlag(const MtMessage& m) {
  for (const auto& [tag, value] : m.user_header) {
    if (tag == "119" && value == "COV") return true;
  }
  return false;
}

// "MT103", "MT202" or "MT202COV".
Result<std::string> MessageTypeOf(const MtMessage& m) {
  const bool cov = HasCoverFlag(m);
  if (m.message_type == "103") return std::string("MT103");
  if (m.message_type == "202") return std::string(cov ? "MT202COV" : "MT202");
  return InvalidArgument(
      "MT" + m.message_type + " is not accepted; verdict reads MT103, MT202 and MT202COV", "{2:}");
}

// Block 3's {121:} UETR, when there is one.
Status MapUserHeader(const MtMessage& m, PaymentInfo* info) {
  for (const auto& [tag, value] : m.user_header) {
    if (tag == "121") {
      Result<std::string> uetr = ParseUetr(value);
      if (!uetr.ok()) {
        return InvalidArgument("block 3 {121:}: " + uetr.status().message(), "{121:}");
      }
      info->uetr = *uetr;
    }
  }
  return Status::Ok();
}

// Sorts the fields into their sequences, refusing any not part of `type`: MT103 has one;
// MT202COV's sequence B starts at its first 50a.
Status SplitSequences(const MtMessage& m, const std::string& type, Sequence& a, Sequence& b) {
  bool in_b = false;
  for (const MtField& f : m.fields) {
    if (type == "MT202COV" && f.tag.starts_with("50")) in_b = true;
    const TagRule* rule = nullptr;
    for (const TagRule& r : kTags) {
      if (r.tag.size() == f.tag.size() && r.tag[0] == f.tag[0] && r.tag[1] == f.tag[1] &&
          r.tag == f.tag) {
        rule = &r;
        break;
      }
    }
    const bool allowed = rule != nullptr && (type == "MT103" ? rule->in_103
                                             : in_b          ? rule->in_cov_b
                                                             : rule->in_202);
    if (!allowed) {
      return FieldError(f, 0, "field is not part of " + type + (in_b ? " sequence B" : ""));
    }
    VERDICT_RETURN_IF_ERROR(in_b ? b.Add(f) : a.Add(f));
  }
  return Status::Ok();
}

// What every type has: reference, value date and amount, time indications, sender to receiver
// information, and the banks the message itself travels between.
// `*carries_time`: whether a :13C: gave the time of day (else the timestamp is the value date).
Status MapCommonFields(const MtMessage& m, const std::string& type, const Sequence& a,
                       Transaction& txn, bool* carries_time) {
  PaymentInfo& info = txn.payment;
  const MtField* f20 = a.Find("20");
  if (f20 == nullptr) return Missing(m, "20", type);
  VERDICT_ASSIGN_OR_RETURN(info.message_id, Reference(*f20));
  const MtField* f32 = a.Find("32");
  if (f32 == nullptr) return Missing(m, "32A", type);
  VERDICT_ASSIGN_OR_RETURN(ValueDateAmount vda, Field32A(*f32));
  txn.amount = vda.amount;
  info.settlement_date = vda.date;
  txn.timestamp_us = vda.days * 86'400 * kMicrosPerSecond;
  std::optional<int64_t> event_time_us;
  int event_time_rank = 0;  // SNDTIME (2) outranks RNCTIME (1)
  for (const MtField* f : a.All("13C")) {
    VERDICT_ASSIGN_OR_RETURN(TimeIndication indication, Field13C(*f));
    const int rank = indication.code == "SNDTIME" ? 2 : indication.code == "RNCTIME" ? 1 : 0;
    if (rank > event_time_rank) {
      event_time_rank = rank;
      event_time_us = txn.timestamp_us + indication.utc_offset_from_midnight_us;
    }
  }
  if (event_time_us) txn.timestamp_us = *event_time_us;
  if (carries_time != nullptr) *carries_time = event_time_us.has_value();
  if (const MtField* f = a.Find("72")) {
    VERDICT_RETURN_IF_ERROR(CheckLines(*f, 6, 35));
    info.sender_to_receiver = JoinLines(f->lines);
  }

  // The banks the message itself travels between.
  info.agents.push_back(AgentRef{"instructing", m.sender_bic, ""});
  info.agents.push_back(AgentRef{"instructed", m.receiver_bic, ""});
  return Status::Ok();
}

// MT103's own fields: bank operation code, instructions, transaction type, exchange rate,
// charges, regulatory reporting, sending institution, reimbursement agent.
Status MapMt103Fields(const MtMessage& m, const std::string& type, const Sequence& a,
                      PaymentInfo& info) {
  const MtField* f23b = nullptr;
  for (const MtField* f : a.All("23B")) f23b = f;
  if (f23b == nullptr) return Missing(m, "23B", type);
  VERDICT_RETURN_IF_ERROR(CheckLines(*f23b, 1, 4));
  const std::string& code = f23b->lines[0];
  if (code != "CRED" && code != "CRTS" && code != "SPAY" && code != "SPRI" && code != "SSTD") {
    return FieldError(
        *f23b, 0,
        "bank operation code " + Quote(code) + " is not one of CRED, CRTS, SPAY, SPRI, SSTD");
  }
  for (const MtField* f : a.All("23E")) {
    VERDICT_RETURN_IF_ERROR(CheckLines(*f, 1, 35));
    const std::string& l = f->lines[0];
    if (l.size() < 4 || !std::all_of(l.begin(), l.begin() + 4, IsUpper) ||
        (l.size() > 4 && l[4] != '/')) {
      return FieldError(*f, 0, "instruction code " + Quote(l) + " is not 4!c[/30x]");
    }
  }
  if (const MtField* f = a.Find("26")) {
    VERDICT_RETURN_IF_ERROR(CheckLines(*f, 1, 3));
    if (f->lines[0].size() != 3) return FieldError(*f, 0, "transaction type code is 3!c");
    info.purpose = f->lines[0];
  }
  if (const MtField* f = a.Find("36")) {
    VERDICT_RETURN_IF_ERROR(CheckLines(*f, 1, 12));
    const std::string& r = f->lines[0];
    if (std::count(r.begin(), r.end(), ',') != 1 || r.front() == ',' ||
        !std::all_of(r.begin(), r.end(), [](char c) { return IsDigit(c) || c == ','; })) {
      return FieldError(*f, 0, "exchange rate " + Quote(r) + " is not a number");
    }
  }
  const MtField* f71a = nullptr;
  for (const MtField* f : a.All("71A")) f71a = f;
  if (f71a == nullptr) return Missing(m, "71A", type);
  VERDICT_RETURN_IF_ERROR(CheckLines(*f71a, 1, 3));
  const std::string& charges = f71a->lines[0];
  if (charges == "OUR") {
    info.charge_bearer = "DEBT";
  } else if (charges == "BEN") {
    info.charge_bearer = "CRED";
  } else if (charges == "SHA") {
    info.charge_bearer = "SHAR";
  } else {
    return FieldError(*f71a, 0, "details of charges " + Quote(charges) + " is not BEN, OUR or SHA");
  }
  for (const char* tag : {"71F", "71G"}) {
    for (const MtField* f : a.All(tag)) {
      if (info.charges.size() == kMaxPaymentListEntries) {
        return FieldError(*f, 0,
                          "more than " + std::to_string(kMaxPaymentListEntries) + " charges");
      }
      VERDICT_ASSIGN_OR_RETURN(Money fee, CurrencyAmount(*f, true));
      info.charges.push_back(Charge{tag[2] == 'F' ? "sender" : "receiver", fee, ""});
    }
  }
  if (const MtField* f = a.Find("77")) VERDICT_RETURN_IF_ERROR(CheckLines(*f, 3, 35));
  if (const MtField* f = a.Find("51")) {
    VERDICT_ASSIGN_OR_RETURN(MtParty p, PartyField(*f));
    (void)p;
  }
  VERDICT_RETURN_IF_ERROR(AddAgent(a, "55", "reimbursement", &info));
  return Status::Ok();
}

// A customer transfer (MT103, MT202COV sequence B): the ordering customer and the beneficiary,
// their banks, intermediaries, remittance information and the instructed amount.
Status MapCustomerTransfer(const MtMessage& m, const std::string& type, const Sequence& a,
                           const Sequence& customer_seq, Transaction& txn) {
  PaymentInfo& info = txn.payment;
  const Sequence* customer = &customer_seq;
  txn.type = "transfer";
  const MtField* f50 = customer->Find("50");
  if (f50 == nullptr) return Missing(m, "50a", type);
  VERDICT_ASSIGN_OR_RETURN(MtParty ordering, PartyField(*f50));
  if (ordering.account.empty()) {
    return FieldError(
        *f50, 0, "the ordering customer has no /account line; verdict keeps state per account");
  }
  const MtField* f59 = customer->Find("59");
  if (f59 == nullptr) return Missing(m, "59a", type);
  VERDICT_ASSIGN_OR_RETURN(MtParty beneficiary, PartyField(*f59));
  if (beneficiary.account.empty()) {
    return FieldError(*f59, 0,
                      "the beneficiary has no /account line; verdict keeps state per account");
  }
  txn.sender = Party{{ordering.account, m.sender_bic}, ordering.country, ordering.name};
  txn.receiver =
      Party{{beneficiary.account, m.receiver_bic}, beneficiary.country, beneficiary.name};
  if (type == "MT202COV") {
    if (const MtField* f58 = a.Find("58")) {
      VERDICT_ASSIGN_OR_RETURN(MtParty inst, PartyField(*f58));
      if (!inst.bic.empty()) txn.receiver.ref.bank = inst.bic;
    } else {
      return Missing(m, "58a", type);
    }
    if (const MtField* f = a.Find("52")) {
      VERDICT_ASSIGN_OR_RETURN(MtParty inst, PartyField(*f));
      if (!inst.bic.empty()) txn.sender.ref.bank = inst.bic;
    }
    VERDICT_RETURN_IF_ERROR(AddAgent(a, "56", "intermediary1", &info));
    VERDICT_RETURN_IF_ERROR(AddAgent(a, "57", "cover_account_with", &info));
  }
  if (const MtField* f = customer->Find("52")) {
    VERDICT_ASSIGN_OR_RETURN(MtParty inst, PartyField(*f));
    if (!inst.bic.empty()) txn.sender.ref.bank = inst.bic;
  }
  if (const MtField* f = customer->Find("57")) {
    VERDICT_ASSIGN_OR_RETURN(MtParty inst, PartyField(*f));
    if (!inst.bic.empty()) txn.receiver.ref.bank = inst.bic;
  }
  VERDICT_RETURN_IF_ERROR(
      AddAgent(*customer, "56", type == "MT103" ? "intermediary1" : "intermediary2", &info));
  if (const MtField* f = customer->Find("70")) {
    VERDICT_RETURN_IF_ERROR(CheckLines(*f, 4, 35));
    txn.remittance = JoinLines(f->lines);
  }
  if (customer != &a) {
    if (const MtField* f = customer->Find("72")) VERDICT_RETURN_IF_ERROR(CheckLines(*f, 6, 35));
  }
  if (const MtField* f = customer->Find("33")) {
    VERDICT_ASSIGN_OR_RETURN(info.instructed_amount, CurrencyAmount(*f, false));
  }
  return Status::Ok();
}

// MT202: the parties are the ordering and the beneficiary institutions.
Status MapInstitutionTransfer(const MtMessage& m, const std::string& type, const Sequence& a,
                              Transaction& txn) {
  PaymentInfo& info = txn.payment;
  txn.type = "bank_transfer";
  const MtField* f21 = a.Find("21");
  if (f21 == nullptr) return Missing(m, "21", type);
  VERDICT_ASSIGN_OR_RETURN(info.end_to_end_id, Reference(*f21));
  txn.sender = Party{{m.sender_bic, m.sender_bic}, "", ""};
  if (const MtField* f = a.Find("52")) {
    VERDICT_ASSIGN_OR_RETURN(MtParty inst, PartyField(*f));
    txn.sender.ref.account = !inst.account.empty() ? inst.account
                             : !inst.bic.empty()   ? inst.bic
                                                   : m.sender_bic;
    if (!inst.bic.empty()) txn.sender.ref.bank = inst.bic;
    txn.sender.name = inst.name;
  }
  const MtField* f58 = a.Find("58");
  if (f58 == nullptr) return Missing(m, "58a", type);
  VERDICT_ASSIGN_OR_RETURN(MtParty inst, PartyField(*f58));
  txn.receiver.ref.account = !inst.account.empty() ? inst.account : inst.bic;
  if (txn.receiver.ref.account.empty()) {
    return FieldError(*f58, 0, "the beneficiary institution has neither /account nor BIC");
  }
  txn.receiver.ref.bank = !inst.bic.empty() ? inst.bic : m.receiver_bic;
  txn.receiver.name = inst.name;
  VERDICT_RETURN_IF_ERROR(AddAgent(a, "56", "intermediary1", &info));
  VERDICT_RETURN_IF_ERROR(AddAgent(a, "57", "account_with", &info));
  return Status::Ok();
}

// The country an account or its bank names: an IBAN's first two letters, else the BIC's
// country code (its 5th and 6th characters); empty when neither says.
std::string CountryOfAccount(const AccountRef& ref) {
  if (ValidateIban(ref.account).ok()) return ref.account.substr(0, 2);
  if (ValidateBic(ref.bank).ok()) return ref.bank.substr(4, 2);
  return "";
}

}  // namespace

Result<Transaction> MapMtMessage(const MtMessage& m, bool* carries_time) {
  VERDICT_ASSIGN_OR_RETURN(const std::string type, MessageTypeOf(m));
  Transaction txn;
  PaymentInfo& info = txn.payment;
  info.message_type = type;
  txn.channel = "wire";
  VERDICT_RETURN_IF_ERROR(MapUserHeader(m, &info));
  Sequence a(type == "MT202COV" ? " in sequence A" : "");
  Sequence b(" in sequence B");
  VERDICT_RETURN_IF_ERROR(SplitSequences(m, type, a, b));
  VERDICT_RETURN_IF_ERROR(MapCommonFields(m, type, a, txn, carries_time));

  // Customer sequence: MT103 itself, or MT202COV sequence B.
  const Sequence* customer = type == "MT103" ? &a : type == "MT202COV" ? &b : nullptr;
  if (type == "MT202COV" && b.Find("50") == nullptr) return Missing(m, "50a", type + " sequence B");
  if (type == "MT103") VERDICT_RETURN_IF_ERROR(MapMt103Fields(m, type, a, info));
  VERDICT_RETURN_IF_ERROR(AddAgent(a, "53", "sender_correspondent", &info));
  VERDICT_RETURN_IF_ERROR(AddAgent(a, "54", "receiver_correspondent", &info));
  if (customer != nullptr) {
    VERDICT_RETURN_IF_ERROR(MapCustomerTransfer(m, type, a, *customer, txn));
  } else {
    VERDICT_RETURN_IF_ERROR(MapInstitutionTransfer(m, type, a, txn));
  }
  if (HasCoverFlag(m)) {
    if (const MtField* f21 = a.Find("21")) {
      VERDICT_ASSIGN_OR_RETURN(info.end_to_end_id, Reference(*f21));
    } else {
      return Missing(m, "21", type);
    }
  }
  // An address's own country (50F, 59F line 3/) stays; otherwise the account's or bank's, so
  // that corridor rules see where the money goes.
  for (Party* party : {&txn.sender, &txn.receiver}) {
    if (party->country.empty()) party->country = CountryOfAccount(party->ref);
  }
  txn.transaction_id = !info.uetr.empty() ? info.uetr : m.sender_bic + "/" + info.message_id;
  return txn;
}

}  // namespace verdict
