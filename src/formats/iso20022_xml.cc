#include "formats/iso20022_xml.h"

#include <algorithm>
#include <vector>

#include "common/rfc3339.h"
#include "core/bic.h"
#include "formats/iban.h"
#include "formats/message_text.h"

namespace verdict::iso20022 {
namespace {

// Elements the message definitions let repeat: their paths always carry an index.
constexpr std::string_view kRepeatable[] = {
    "CdtTrfTxInf", "PmtInf",    "TxInfAndSts", "OrgnlGrpInfAndSts", "Ustrd",
    "Strd",        "ChrgsInf",  "AdrLine",     "InstrForNxtAgt",    "InstrForCdtrAgt",
    "RgltryRptg",  "StsRsnInf", "AddtlInf",    "CdtrRefInf",        "RfrdDocInf",
};

bool IsRepeatable(std::string_view name) {
  return std::find(std::begin(kRepeatable), std::end(kRepeatable), name) != std::end(kRepeatable);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Result<std::string> WithPath(pugi::xml_node node, const Status& s) {
  return ErrorAt(node, s.message());
}

// True when `node` is an element whose name, without prefix, is `name`: one pass over the
// name, no allocation (this is the decoders' innermost loop).
bool IsElement(pugi::xml_node node, std::string_view name) {
  if (node.type() != pugi::node_element) return false;
  const char* p = node.name();
  const char* local = p;
  for (const char* q = p; *q != '\0'; ++q) {
    if (*q == ':') local = q + 1;
  }
  size_t i = 0;
  for (; i < name.size(); ++i) {
    if (local[i] != name[i]) return false;
  }
  return local[i] == '\0';
}

}  // namespace

std::string_view LocalName(pugi::xml_node node) {
  std::string_view name = node.name();
  const size_t colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

std::string PathOf(pugi::xml_node node) {
  std::vector<std::string> parts;
  for (pugi::xml_node n = node; n && n.type() == pugi::node_element; n = n.parent()) {
    const std::string_view name = LocalName(n);
    size_t index = 1;
    size_t total = 1;
    for (pugi::xml_node s = n.previous_sibling(); s; s = s.previous_sibling()) {
      if (s.type() == pugi::node_element && LocalName(s) == name) ++index;
    }
    if (!IsRepeatable(name)) {
      for (pugi::xml_node s = n.next_sibling(); s && total == 1; s = s.next_sibling()) {
        if (s.type() == pugi::node_element && LocalName(s) == name) ++total;
      }
    }
    std::string part(name);
    if (IsRepeatable(name) || index > 1 || total > 1) part += "[" + std::to_string(index) + "]";
    parts.push_back(std::move(part));
  }
  std::string path;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) path += "/" + *it;
  return path;
}

Status ErrorAt(pugi::xml_node node, const std::string& what) {
  std::string path = PathOf(node);
  return InvalidArgument(path + ": " + what, path);
}

Status MissingAt(pugi::xml_node parent, std::string_view child) {
  std::string path = PathOf(parent) + "/" + std::string(child);
  return InvalidArgument(path + ": required element is missing", path);
}

Result<pugi::xml_node> Optional(pugi::xml_node parent, std::string_view name) {
  pugi::xml_node found;
  for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) {
    if (!IsElement(c, name)) continue;
    if (found) return ErrorAt(c, "element may appear only once");
    found = c;
  }
  return found;
}

Result<pugi::xml_node> Required(pugi::xml_node parent, std::string_view name) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node found, Optional(parent, name));
  if (!found) return MissingAt(parent, name);
  return found;
}

Result<std::string_view> TextOf(pugi::xml_node node) {
  std::string_view text;
  bool has_text = false;
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_element) return ErrorAt(node, "expected text, found elements");
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
      if (has_text) return ErrorAt(node, "text is split by comments or CDATA sections");
      text = c.value();
      has_text = true;
    }
  }
  text = TrimSpace(text);
  if (text.empty()) return ErrorAt(node, "value is empty");
  return text;
}

Result<std::string> ReadIdentifier(pugi::xml_node node, size_t max_chars) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  Status s = CheckIdentifier(text, max_chars, "identifier");
  if (!s.ok()) return WithPath(node, s);
  return std::string(text);
}

Result<std::string> ReadText(pugi::xml_node node, size_t max_chars) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  Status s = CheckText(text, max_chars, "text");
  if (!s.ok()) return WithPath(node, s);
  return std::string(text);
}

Result<std::string> ReadCode(pugi::xml_node node, size_t max_chars) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  bool ok = text.size() <= max_chars;
  for (char c : text) ok = ok && ((c >= 'A' && c <= 'Z') || IsDigit(c));
  if (!ok) {
    return ErrorAt(node, "code " + Quote(text) + " must be 1 to " + std::to_string(max_chars) +
                             " characters A-Z, 0-9");
  }
  return std::string(text);
}

Result<Money> ReadAmount(pugi::xml_node node, bool allow_zero) {
  pugi::xml_attribute ccy = node.attribute("Ccy");
  if (!ccy) return ErrorAt(node, "the Ccy attribute is required");
  const std::string_view code = TrimSpace(ccy.value());
  const CurrencyInfo* currency = FindCurrency(code);
  if (currency == nullptr) {
    return ErrorAt(node, "currency " + Quote(code) + " is not an ISO 4217 currency code");
  }
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  size_t dots = 0;
  size_t digits = 0;
  for (char c : text) {
    if (c == '.') {
      ++dots;
    } else if (IsDigit(c)) {
      ++digits;
    } else {
      digits = 0;
      break;
    }
  }
  if (dots > 1 || digits == 0) return ErrorAt(node, "amount " + Quote(text) + " is not a number");
  Result<Money> money = Money::Parse(text, *currency);
  if (!money.ok()) {
    return ErrorAt(node, "amount " + Quote(text) + ": " + money.status().message());
  }
  if (money->minor_units() <= 0 && !allow_zero) return ErrorAt(node, "amount must be positive");
  return *money;
}

Result<std::string> ReadDate(pugi::xml_node node) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  Status s = CheckIsoDate(text);
  if (!s.ok()) return WithPath(node, s);
  return std::string(text);
}

Result<int64_t> ReadDateTime(pugi::xml_node node) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  std::string value(text);
  const bool zoned =
      !value.empty() &&
      (value.back() == 'Z' ||
       (value.size() >= 25 && (value[value.size() - 6] == '+' || value[value.size() - 6] == '-')));
  if (!zoned) value += 'Z';  // ISODateTime without an offset: read as UTC (docs/formats.md)
  Result<int64_t> micros = ParseRfc3339Micros(value);
  if (!micros.ok()) {
    return ErrorAt(node, "date-time " + Quote(text) + " is not an ISO 8601 date and time (" +
                             micros.status().message() + ")");
  }
  return *micros;
}

Result<std::string> ReadBic(pugi::xml_node node) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  Status s = ValidateBic(text);
  if (!s.ok()) return WithPath(node, s);
  return std::string(text);
}

Result<std::string> ReadCountry(pugi::xml_node node) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  if (!IsCountryCode(text)) {
    return ErrorAt(node, Quote(text) + " is not an ISO 3166-1 alpha-2 country code");
  }
  return std::string(text);
}

Result<int64_t> ReadCount(pugi::xml_node node) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  Result<int64_t> n = ParseCount(text);
  if (!n.ok()) return ErrorAt(node, n.status().message());
  return *n;
}

Result<std::string> ReadUetr(pugi::xml_node node) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  Result<std::string> uetr = ParseUetr(text);
  if (!uetr.ok()) return WithPath(node, uetr.status());
  return *uetr;
}

Result<int64_t> ReadDecimal5(pugi::xml_node node) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(node));
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  bool ok = !whole.empty() && whole.size() <= 13 && frac.size() <= 5 &&
            (dot == std::string_view::npos || !frac.empty());
  // Stops as soon as the text is refused: accumulating past 13 whole digits would overflow.
  int64_t v = 0;
  for (size_t i = 0; ok && i < whole.size(); ++i) {
    ok = IsDigit(whole[i]);
    if (ok) v = v * 10 + (whole[i] - '0');
  }
  for (size_t i = 0; ok && i < 5; ++i) {
    const char c = i < frac.size() ? frac[i] : '0';
    ok = IsDigit(c);
    if (ok) v = v * 10 + (c - '0');
  }
  if (!ok) return ErrorAt(node, "decimal " + Quote(text) + " is not a number");
  return v;
}

Result<int64_t> Decimal5Of(const Money& money) {
  int64_t v = money.minor_units();
  for (int i = money.currency().minor_digits; i < 5; ++i) {
    if (__builtin_mul_overflow(v, 10, &v)) return InvalidArgument("amount too large to sum");
  }
  return v;
}

Status ReadParty(pugi::xml_node parent, std::string_view party, std::string_view account,
                 std::string_view agent, Party* out) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node p, Required(parent, party));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node nm, Optional(p, "Nm"));
  if (nm) {
    VERDICT_ASSIGN_OR_RETURN(out->name, ReadText(nm, 140));
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node adr, Optional(p, "PstlAdr"));
  if (adr) {
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node ctry, Optional(adr, "Ctry"));
    if (ctry) {
      VERDICT_ASSIGN_OR_RETURN(out->country, ReadCountry(ctry));
    }
  }
  if (out->country.empty()) {
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node res, Optional(p, "CtryOfRes"));
    if (res) {
      VERDICT_ASSIGN_OR_RETURN(out->country, ReadCountry(res));
    }
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node acct, Optional(parent, account));
  if (!acct) {
    std::string path = PathOf(parent) + "/" + std::string(account);
    return InvalidArgument(path + ": required element is missing (verdict keeps state per account)",
                           path);
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node id, Required(acct, "Id"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node iban, Optional(id, "IBAN"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node othr, Optional(id, "Othr"));
  if (iban && othr) return ErrorAt(id, "IBAN and Othr are alternatives; give one");
  if (iban) {
    VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(iban));
    Status s = ValidateIban(text);
    if (!s.ok()) return ErrorAt(iban, s.message());
    out->ref.account = std::string(text);
  } else if (othr) {
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node oid, Required(othr, "Id"));
    VERDICT_ASSIGN_OR_RETURN(out->ref.account, ReadIdentifier(oid, 34));
  } else {
    return MissingAt(id, "IBAN");
  }
  if (agent.empty()) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node agt, Optional(parent, agent));
  if (!agt) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node fin, Required(agt, "FinInstnId"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node bic, Optional(fin, "BICFI"));
  if (bic) {
    VERDICT_ASSIGN_OR_RETURN(out->ref.bank, ReadBic(bic));
    return Status::Ok();
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node clr, Optional(fin, "ClrSysMmbId"));
  if (clr) {
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node mmb, Required(clr, "MmbId"));
    VERDICT_ASSIGN_OR_RETURN(out->ref.bank, ReadIdentifier(mmb, 35));
  }
  return Status::Ok();
}

Status ReadAgent(pugi::xml_node parent, std::string_view element, std::string_view role,
                 PaymentInfo* out) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node agt, Optional(parent, element));
  if (!agt) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node fin, Required(agt, "FinInstnId"));
  AgentRef ref;
  ref.role = std::string(role);
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node bic, Optional(fin, "BICFI"));
  if (bic) {
    VERDICT_ASSIGN_OR_RETURN(ref.bic, ReadBic(bic));
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node nm, Optional(fin, "Nm"));
  if (nm) {
    VERDICT_ASSIGN_OR_RETURN(ref.name, ReadText(nm, 140));
  }
  out->agents.push_back(std::move(ref));
  return Status::Ok();
}

Status ReadPaymentType(pugi::xml_node pmt_tp_inf, Transaction* txn) {
  if (!pmt_tp_inf) return Status::Ok();
  for (std::string_view block : {"SvcLvl", "LclInstrm"}) {
    // SvcLvl repeats in later versions; each occurrence is looked at.
    for (pugi::xml_node b = pmt_tp_inf.first_child(); b; b = b.next_sibling()) {
      if (b.type() != pugi::node_element || LocalName(b) != block) continue;
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cd, Optional(b, "Cd"));
      if (!cd) continue;
      Result<std::string> code = ReadCode(cd, 35);
      if (!code.ok()) return code.status();
      if (code->compare("INST") == 0) txn->priority = Priority::kRealtime;
    }
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node ctgy, Optional(pmt_tp_inf, "CtgyPurp"));
  if (ctgy) {
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cd, Optional(ctgy, "Cd"));
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node prtry, Optional(ctgy, "Prtry"));
    if (cd) {
      VERDICT_ASSIGN_OR_RETURN(txn->payment.category_purpose, ReadCode(cd, 4));
    } else if (prtry) {
      VERDICT_ASSIGN_OR_RETURN(txn->payment.category_purpose, ReadIdentifier(prtry, 35));
    }
  }
  return Status::Ok();
}

Status ReadPurpose(pugi::xml_node parent, Transaction* txn) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node purp, Optional(parent, "Purp"));
  if (!purp) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cd, Optional(purp, "Cd"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node prtry, Optional(purp, "Prtry"));
  if (cd && prtry) return ErrorAt(purp, "Cd and Prtry are alternatives; give one");
  if (cd) {
    VERDICT_ASSIGN_OR_RETURN(txn->payment.purpose, ReadCode(cd, 4));
  } else if (prtry) {
    VERDICT_ASSIGN_OR_RETURN(txn->payment.purpose, ReadIdentifier(prtry, 35));
  } else {
    return MissingAt(purp, "Cd");
  }
  return Status::Ok();
}

Status ReadRemittance(pugi::xml_node parent, Transaction* txn) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node rmt, Optional(parent, "RmtInf"));
  if (!rmt) return Status::Ok();
  std::string text;
  auto append = [&](const std::string& part) {
    if (!text.empty()) text += ' ';
    text += part;
  };
  for (pugi::xml_node c = rmt.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    if (LocalName(c) == "Ustrd") {
      VERDICT_ASSIGN_OR_RETURN(std::string line, ReadText(c, 140));
      append(line);
    } else if (LocalName(c) == "Strd") {
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cri, Optional(c, "CdtrRefInf"));
      if (!cri) continue;
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node ref, Optional(cri, "Ref"));
      if (ref) {
        VERDICT_ASSIGN_OR_RETURN(std::string r, ReadText(ref, 35));
        append(r);
      }
    }
  }
  if (Utf8Length(text) > 1024) {
    return ErrorAt(rmt, "remittance information is longer than 1024 characters");
  }
  txn->remittance = std::move(text);
  return Status::Ok();
}

Status ReadChargeBearer(pugi::xml_node node, Transaction* txn) {
  Result<std::string> code = ReadCode(node, 4);
  if (!code.ok()) return code.status();
  const std::string_view c = *code;
  if (c != "DEBT" && c != "CRED" && c != "SHAR" && c != "SLEV") {
    return ErrorAt(node, "charge bearer " + Quote(c) + " is not one of DEBT, CRED, SHAR, SLEV");
  }
  txn->payment.charge_bearer = std::string(c);
  return Status::Ok();
}

std::string ChooseTransactionId(const PaymentInfo& info, std::string_view fallback_id, size_t n) {
  if (!info.uetr.empty()) return info.uetr;
  if (!fallback_id.empty()) return std::string(fallback_id);
  if (!info.end_to_end_id.empty() && info.end_to_end_id != "NOTPROVIDED") {
    return info.end_to_end_id;
  }
  return info.message_id + "/" + std::to_string(n);
}

}  // namespace verdict::iso20022
