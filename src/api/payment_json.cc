#include "api/payment_json.h"

#include <string_view>

#include "api/json_fields.h"
#include "common/rfc3339.h"
#include "core/bic.h"

namespace verdict {
namespace {

using json_fields::GetCode;
using json_fields::GetIdentifier;
using json_fields::GetString;
using json_fields::GetText;
using json_fields::WrongType;
using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Generous against what the message decoders produce (Max35Text ids, Max140Text names,
// several joined instruction lines), so that every decoded message reads back.
constexpr size_t kMaxId = 64;
constexpr size_t kMaxName = 512;
constexpr size_t kMaxText = kMaxPaymentTextBytes;
constexpr size_t kMaxCode = 35;
constexpr size_t kMaxListEntries = kMaxPaymentListEntries;

// Calls `on_field(key, value, name)` for each member, refusing duplicates; `on_field` refuses
// unknown keys by returning an error.
template <typename OnField>
Status ForEachField(element value, const std::string& field, OnField on_field) {
  object obj;
  if (value.get_object().get(obj) != simdjson::SUCCESS) {
    return WrongType(field, "an object", value);
  }
  std::vector<std::string_view> seen;
  for (auto [key, item] : obj) {
    const std::string name = field + "." + std::string(key.substr(0, 64));
    for (std::string_view k : seen) {
      if (k == key) return InvalidArgument("duplicate field " + name, name);
    }
    seen.push_back(key);
    VERDICT_RETURN_IF_ERROR(on_field(key, item, name));
  }
  return Status::Ok();
}

Status UnknownField(std::string_view key, const std::string& field, const std::string& name) {
  return InvalidArgument("unknown field '" + std::string(key.substr(0, 64)) + "' in " + field,
                         name);
}

Status Required(bool present, const std::string& field) {
  if (present) return Status::Ok();
  return InvalidArgument(field + " is required", field);
}

Result<std::string> GetBic(element value, const std::string& field) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view bic, GetString(value, field));
  Status valid = ValidateBic(bic);
  if (!valid.ok()) return InvalidArgument(field + ": " + valid.message(), field);
  return std::string(bic);
}

Result<std::string> GetDate(element value, const std::string& field) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view date, GetString(value, field));
  if (date.size() != 10 || !ParseRfc3339Micros(std::string(date) + "T00:00:00Z").ok()) {
    return InvalidArgument(field + " must be a date YYYY-MM-DD", field);
  }
  return std::string(date);
}

Result<std::string> GetUetr(element value, const std::string& field) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view uuid, GetString(value, field));
  bool ok = uuid.size() == 36;
  for (size_t i = 0; ok && i < uuid.size(); ++i) {
    const char c = uuid[i];
    ok = (i == 8 || i == 13 || i == 18 || i == 23)
             ? c == '-'
             : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }
  if (!ok) return InvalidArgument(field + " must be a lower-case UUID (8-4-4-4-12)", field);
  return std::string(uuid);
}

Result<std::string> GetOneOf(element value, const std::string& field,
                             std::initializer_list<std::string_view> allowed) {
  VERDICT_ASSIGN_OR_RETURN(std::string_view s, GetString(value, field));
  std::string list;
  for (std::string_view a : allowed) {
    if (s == a) return std::string(s);
    list += list.empty() ? "" : ", ";
    list += a;
  }
  return InvalidArgument(field + " must be one of " + list, field);
}

// {"amount": "12.50", "currency": "EUR"}; zero only where `allow_zero`.
Result<Money> GetMoney(element value, const std::string& field, bool allow_zero) {
  std::string amount_text;
  const CurrencyInfo* currency = nullptr;
  VERDICT_RETURN_IF_ERROR(ForEachField(
      value, field, [&](std::string_view key, element item, const std::string& name) -> Status {
        if (key == "amount") {
          VERDICT_ASSIGN_OR_RETURN(amount_text, json_fields::AmountText(item, name));
        } else if (key == "currency") {
          VERDICT_ASSIGN_OR_RETURN(std::string_view code, GetString(item, name));
          currency = FindCurrency(code);
          if (currency == nullptr) {
            return InvalidArgument("currency '" + std::string(code.substr(0, 8)) +
                                       "' is not an ISO 4217 currency code",
                                   name);
          }
        } else {
          return UnknownField(key, field, name);
        }
        return Status::Ok();
      }));
  VERDICT_RETURN_IF_ERROR(Required(!amount_text.empty(), field + ".amount"));
  VERDICT_RETURN_IF_ERROR(Required(currency != nullptr, field + ".currency"));
  Result<Money> money = Money::Parse(amount_text, *currency);
  if (!money.ok()) return InvalidArgument(money.status().message(), field + ".amount");
  if (money->minor_units() < 0 || (!allow_zero && money->minor_units() == 0)) {
    return InvalidArgument(field + ".amount must be " + (allow_zero ? "zero or more" : "positive"),
                           field + ".amount");
  }
  return *money;
}

// Calls `decode(item, name)` for each entry of a bounded array.
template <typename Decode>
Status ForEachEntry(element value, const std::string& field, Decode decode) {
  array items;
  if (value.get_array().get(items) != simdjson::SUCCESS) {
    return WrongType(field, "an array", value);
  }
  if (items.size() > kMaxListEntries) {
    return InvalidArgument(field + " has more than " + std::to_string(kMaxListEntries) + " entries",
                           field);
  }
  size_t index = 0;
  for (element item : items) {
    VERDICT_RETURN_IF_ERROR(decode(item, field + "[" + std::to_string(index++) + "]"));
  }
  return Status::Ok();
}

Result<AgentRef> DecodeAgent(element value, const std::string& field) {
  AgentRef agent;
  VERDICT_RETURN_IF_ERROR(ForEachField(
      value, field, [&](std::string_view key, element item, const std::string& name) -> Status {
        if (key == "role") {
          VERDICT_ASSIGN_OR_RETURN(agent.role, GetCode(item, name, kMaxCode));
        } else if (key == "bic") {
          VERDICT_ASSIGN_OR_RETURN(agent.bic, GetBic(item, name));
        } else if (key == "name") {
          VERDICT_ASSIGN_OR_RETURN(agent.name, GetText(item, name, kMaxName));
        } else {
          return UnknownField(key, field, name);
        }
        return Status::Ok();
      }));
  VERDICT_RETURN_IF_ERROR(Required(!agent.role.empty(), field + ".role"));
  return agent;
}

Result<Charge> DecodeCharge(element value, const std::string& field) {
  Charge charge;
  bool has_amount = false;
  VERDICT_RETURN_IF_ERROR(ForEachField(
      value, field, [&](std::string_view key, element item, const std::string& name) -> Status {
        if (key == "kind") {
          VERDICT_ASSIGN_OR_RETURN(charge.kind,
                                   GetOneOf(item, name, {"sender", "receiver", "agent"}));
        } else if (key == "amount") {
          VERDICT_ASSIGN_OR_RETURN(charge.amount, GetMoney(item, name, /*allow_zero=*/true));
          has_amount = true;
        } else if (key == "agent") {
          VERDICT_ASSIGN_OR_RETURN(charge.agent, GetBic(item, name));
        } else {
          return UnknownField(key, field, name);
        }
        return Status::Ok();
      }));
  VERDICT_RETURN_IF_ERROR(Required(!charge.kind.empty(), field + ".kind"));
  VERDICT_RETURN_IF_ERROR(Required(has_amount, field + ".amount"));
  return charge;
}

void WriteMoney(JsonWriter& w, const Money& money) {
  w.BeginObject();
  w.Key("amount").String(money.ToDecimalString());
  w.Key("currency").String(money.currency().code);
  w.EndObject();
}

}  // namespace

Result<PaymentInfo> DecodePaymentInfo(element value, const std::string& field) {
  PaymentInfo p;
  Status status = ForEachField(
      value, field, [&](std::string_view key, element item, const std::string& name) -> Status {
        if (key == "message_type") {
          VERDICT_ASSIGN_OR_RETURN(p.message_type, GetIdentifier(item, name, kMaxCode));
        } else if (key == "message_id") {
          VERDICT_ASSIGN_OR_RETURN(p.message_id, GetIdentifier(item, name, kMaxId));
        } else if (key == "instruction_id") {
          VERDICT_ASSIGN_OR_RETURN(p.instruction_id, GetIdentifier(item, name, kMaxId));
        } else if (key == "end_to_end_id") {
          VERDICT_ASSIGN_OR_RETURN(p.end_to_end_id, GetIdentifier(item, name, kMaxId));
        } else if (key == "uetr") {
          VERDICT_ASSIGN_OR_RETURN(p.uetr, GetUetr(item, name));
        } else if (key == "settlement_date") {
          VERDICT_ASSIGN_OR_RETURN(p.settlement_date, GetDate(item, name));
        } else if (key == "charge_bearer") {
          VERDICT_ASSIGN_OR_RETURN(p.charge_bearer,
                                   GetOneOf(item, name, {"DEBT", "CRED", "SHAR", "SLEV"}));
        } else if (key == "purpose") {
          VERDICT_ASSIGN_OR_RETURN(p.purpose, GetIdentifier(item, name, kMaxCode));
        } else if (key == "category_purpose") {
          VERDICT_ASSIGN_OR_RETURN(p.category_purpose, GetIdentifier(item, name, kMaxCode));
        } else if (key == "instructed_amount") {
          VERDICT_ASSIGN_OR_RETURN(p.instructed_amount, GetMoney(item, name, /*allow_zero=*/false));
        } else if (key == "agents") {
          return ForEachEntry(item, name, [&](element entry, const std::string& at) -> Status {
            VERDICT_ASSIGN_OR_RETURN(AgentRef agent, DecodeAgent(entry, at));
            p.agents.push_back(std::move(agent));
            return Status::Ok();
          });
        } else if (key == "charges") {
          return ForEachEntry(item, name, [&](element entry, const std::string& at) -> Status {
            VERDICT_ASSIGN_OR_RETURN(Charge charge, DecodeCharge(entry, at));
            p.charges.push_back(std::move(charge));
            return Status::Ok();
          });
        } else if (key == "sender_to_receiver") {
          VERDICT_ASSIGN_OR_RETURN(p.sender_to_receiver, GetText(item, name, kMaxText));
        } else {
          return UnknownField(key, field, name);
        }
        return Status::Ok();
      });
  VERDICT_RETURN_IF_ERROR(status);
  // An empty message_type means "no payment message" (PaymentInfo::empty).
  VERDICT_RETURN_IF_ERROR(Required(!p.message_type.empty(), field + ".message_type"));
  return p;
}

void WritePaymentJson(JsonWriter& w, const PaymentInfo& p) {
  auto optional = [&w](std::string_view key, const std::string& value) {
    if (!value.empty()) w.Key(key).String(value);
  };
  w.BeginObject();
  w.Key("message_type").String(p.message_type);
  optional("message_id", p.message_id);
  optional("instruction_id", p.instruction_id);
  optional("end_to_end_id", p.end_to_end_id);
  optional("uetr", p.uetr);
  optional("settlement_date", p.settlement_date);
  optional("charge_bearer", p.charge_bearer);
  optional("purpose", p.purpose);
  optional("category_purpose", p.category_purpose);
  if (p.instructed_amount) {
    w.Key("instructed_amount");
    WriteMoney(w, *p.instructed_amount);
  }
  if (!p.agents.empty()) {
    w.Key("agents").BeginArray();
    for (const AgentRef& a : p.agents) {
      w.BeginObject().Key("role").String(a.role);
      if (!a.bic.empty()) w.Key("bic").String(a.bic);
      if (!a.name.empty()) w.Key("name").String(a.name);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!p.charges.empty()) {
    w.Key("charges").BeginArray();
    for (const Charge& c : p.charges) {
      w.BeginObject().Key("kind").String(c.kind).Key("amount");
      WriteMoney(w, c.amount);
      if (!c.agent.empty()) w.Key("agent").String(c.agent);
      w.EndObject();
    }
    w.EndArray();
  }
  optional("sender_to_receiver", p.sender_to_receiver);
  w.EndObject();
}

}  // namespace verdict
