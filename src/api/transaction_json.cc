#include "api/transaction_json.h"

#include <simdjson.h>

#include <algorithm>

#include "api/json_fields.h"
#include "api/payment_json.h"
#include "common/json_writer.h"
#include "common/rfc3339.h"

namespace verdict {
namespace {

using json_fields::AmountText;
using json_fields::GetCode;
using json_fields::GetIdentifier;
using json_fields::GetString;
using json_fields::GetText;
using json_fields::IsVisibleAscii;
using json_fields::TypeName;
using json_fields::WrongType;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

Result<Party> DecodeParty(element value, const std::string& field,
                          const TransactionLimits& limits) {
  object obj;
  if (value.get_object().get(obj) != simdjson::SUCCESS) {
    return WrongType(field, "an object", value);
  }
  Party party;
  bool has_account = false;
  uint32_t seen = 0;
  for (auto [key, item] : obj) {
    const std::string name = field + "." + std::string(key);
    uint32_t bit;
    if (key == "account") {
      bit = 1;
      VERDICT_ASSIGN_OR_RETURN(party.ref.account,
                               GetIdentifier(item, name, limits.max_account_length));
      has_account = true;
    } else if (key == "bank") {
      bit = 2;
      VERDICT_ASSIGN_OR_RETURN(party.ref.bank, GetIdentifier(item, name, limits.max_bank_length));
    } else if (key == "country") {
      bit = 4;
      VERDICT_ASSIGN_OR_RETURN(std::string_view country, GetString(item, name));
      if (!IsCountryCode(country)) {
        return InvalidArgument(name + " '" + std::string(country.substr(0, 8)) +
                                   "' is not an ISO 3166-1 alpha-2 country code",
                               name);
      }
      party.country = std::string(country);
    } else if (key == "name") {
      bit = 8;
      VERDICT_ASSIGN_OR_RETURN(party.name, GetText(item, name, limits.max_name_length));
    } else {
      return InvalidArgument("unknown field '" + std::string(key.substr(0, 64)) + "' in " + field,
                             name);
    }
    if (seen & bit) return InvalidArgument("duplicate field " + name, name);
    seen |= bit;
  }
  if (!has_account) return InvalidArgument(field + ".account is required", field + ".account");
  return party;
}

Result<std::vector<std::pair<std::string, std::string>>> DecodeMetadata(
    element value, const TransactionLimits& limits) {
  object obj;
  if (value.get_object().get(obj) != simdjson::SUCCESS) {
    return WrongType("metadata", "an object of strings", value);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto [key, item] : obj) {
    std::string name = "metadata." + std::string(key.substr(0, 64));
    if (out.size() == limits.max_metadata_entries) {
      return InvalidArgument(
          "metadata has more than " + std::to_string(limits.max_metadata_entries) + " entries",
          "metadata");
    }
    if (key.empty() || key.size() > limits.max_metadata_key_length || !IsVisibleAscii(key)) {
      return InvalidArgument("metadata keys must be 1 to " +
                                 std::to_string(limits.max_metadata_key_length) +
                                 " visible ASCII characters",
                             name);
    }
    for (const auto& [existing, unused] : out) {
      if (existing == key) return InvalidArgument("duplicate field " + name, name);
    }
    VERDICT_ASSIGN_OR_RETURN(std::string text,
                             GetText(item, name, limits.max_metadata_value_length));
    out.emplace_back(std::string(key), std::move(text));
  }
  return out;
}

enum Field : uint32_t {
  kTransactionId = 1 << 0,
  kTimestamp = 1 << 1,
  kAmount = 1 << 2,
  kCurrency = 1 << 3,
  kSender = 1 << 4,
  kReceiver = 1 << 5,
  kChannel = 1 << 6,
  kType = 1 << 7,
  kRemittance = 1 << 8,
  kPriority = 1 << 9,
  kDeadline = 1 << 10,
  kMetadata = 1 << 11,
  kPayment = 1 << 12,
};

struct FieldName {
  std::string_view name;
  Field bit;
};

constexpr FieldName kFields[] = {
    {"transaction_id", kTransactionId},
    {"timestamp", kTimestamp},
    {"amount", kAmount},
    {"currency", kCurrency},
    {"sender", kSender},
    {"receiver", kReceiver},
    {"channel", kChannel},
    {"type", kType},
    {"remittance", kRemittance},
    {"priority", kPriority},
    {"deadline_ms", kDeadline},
    {"metadata", kMetadata},
    {"payment", kPayment},
};

constexpr FieldName kRequired[] = {
    {"transaction_id", kTransactionId},
    {"timestamp", kTimestamp},
    {"amount", kAmount},
    {"currency", kCurrency},
    {"sender", kSender},
    {"receiver", kReceiver},
};

Result<Transaction> DecodeTransaction(element root, const TransactionLimits& limits) {
  object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument(std::string("a transaction must be a JSON object, not ") +
                           TypeName(root.type()));
  }
  Transaction txn;
  uint32_t seen = 0;
  std::string amount_text;
  for (auto [key, value] : obj) {
    Field bit{};
    for (const auto& f : kFields) {
      if (f.name == key) bit = f.bit;
    }
    const std::string name(key.substr(0, 64));
    if (bit == 0) return InvalidArgument("unknown field '" + name + "'", name);
    if (seen & bit) return InvalidArgument("duplicate field '" + name + "'", name);
    seen |= bit;
    switch (bit) {
      case kTransactionId: {
        VERDICT_ASSIGN_OR_RETURN(txn.transaction_id,
                                 GetIdentifier(value, name, limits.max_id_length));
        break;
      }
      case kTimestamp: {
        VERDICT_ASSIGN_OR_RETURN(std::string_view text, GetString(value, name));
        Result<int64_t> micros = ParseRfc3339Micros(text);
        if (!micros.ok()) return InvalidArgument(micros.status().message(), name);
        txn.timestamp_us = *micros;
        break;
      }
      case kAmount: {
        VERDICT_ASSIGN_OR_RETURN(amount_text, AmountText(value, name));
        break;
      }
      case kCurrency: {
        VERDICT_ASSIGN_OR_RETURN(std::string_view code, GetString(value, name));
        const CurrencyInfo* currency = FindCurrency(code);
        if (currency == nullptr) {
          return InvalidArgument(
              "currency '" + std::string(code.substr(0, 8)) + "' is not an ISO 4217 currency code",
              name);
        }
        txn.amount = Money(0, *currency);
        break;
      }
      case kSender: {
        VERDICT_ASSIGN_OR_RETURN(txn.sender, DecodeParty(value, name, limits));
        break;
      }
      case kReceiver: {
        VERDICT_ASSIGN_OR_RETURN(txn.receiver, DecodeParty(value, name, limits));
        break;
      }
      case kChannel: {
        VERDICT_ASSIGN_OR_RETURN(txn.channel, GetCode(value, name, limits.max_code_length));
        break;
      }
      case kType: {
        VERDICT_ASSIGN_OR_RETURN(txn.type, GetCode(value, name, limits.max_code_length));
        break;
      }
      case kRemittance: {
        VERDICT_ASSIGN_OR_RETURN(txn.remittance,
                                 GetText(value, name, limits.max_remittance_length));
        break;
      }
      case kPriority: {
        VERDICT_ASSIGN_OR_RETURN(std::string_view p, GetString(value, name));
        if (p == "realtime") {
          txn.priority = Priority::kRealtime;
        } else if (p == "standard") {
          txn.priority = Priority::kStandard;
        } else if (p == "bulk") {
          txn.priority = Priority::kBulk;
        } else {
          return InvalidArgument("priority must be one of realtime, standard, bulk", name);
        }
        break;
      }
      case kDeadline: {
        int64_t ms;
        if (value.get_int64().get(ms) != simdjson::SUCCESS) {
          return WrongType(name, "an integer number of milliseconds", value);
        }
        if (ms < 1 || ms > limits.max_deadline_ms) {
          return InvalidArgument(
              "deadline_ms must be between 1 and " + std::to_string(limits.max_deadline_ms), name);
        }
        txn.deadline_ms = static_cast<int32_t>(ms);
        break;
      }
      case kMetadata: {
        VERDICT_ASSIGN_OR_RETURN(txn.metadata, DecodeMetadata(value, limits));
        break;
      }
      case kPayment: {
        VERDICT_ASSIGN_OR_RETURN(txn.payment, DecodePaymentInfo(value, name));
        break;
      }
    }
  }
  for (const auto& f : kRequired) {
    if (!(seen & f.bit)) {
      return InvalidArgument(std::string(f.name) + " is required", std::string(f.name));
    }
  }
  Result<Money> amount = Money::Parse(amount_text, txn.amount.currency());
  if (!amount.ok()) return InvalidArgument(amount.status().message(), "amount");
  if (amount->minor_units() <= 0) return InvalidArgument("amount must be positive", "amount");
  txn.amount = *amount;
  return txn;
}

Status ParseError(simdjson::error_code error) {
  return InvalidArgument(std::string("body is not valid JSON: ") + simdjson::error_message(error));
}

}  // namespace

struct TransactionDecoder::Impl {
  TransactionLimits limits;
  simdjson::dom::parser parser;
};

TransactionDecoder::TransactionDecoder(TransactionLimits limits)
    : impl_(new Impl{limits, simdjson::dom::parser()}) {}

TransactionDecoder::~TransactionDecoder() { delete impl_; }

Result<Transaction> TransactionDecoder::DecodeOne(std::string_view json) {
  if (json.empty()) return InvalidArgument("body is empty; expected a JSON transaction object");
  element root;
  auto error = impl_->parser.parse(json.data(), json.size(), true).get(root);
  if (error != simdjson::SUCCESS) return ParseError(error);
  return DecodeTransaction(root, impl_->limits);
}

Result<std::vector<Result<Transaction>>> TransactionDecoder::DecodeBatch(std::string_view json,
                                                                         size_t max_items) {
  if (json.empty()) return InvalidArgument("body is empty; expected {\"transactions\": [...]}");
  element root;
  auto error = impl_->parser.parse(json.data(), json.size(), true).get(root);
  if (error != simdjson::SUCCESS) return ParseError(error);
  object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument(std::string("a batch must be a JSON object, not ") +
                           TypeName(root.type()));
  }
  simdjson::dom::array items;
  bool found = false;
  for (auto [key, value] : obj) {
    if (key != "transactions") {
      std::string name(key.substr(0, 64));
      return InvalidArgument("unknown field '" + name + "'", name);
    }
    if (found) return InvalidArgument("duplicate field 'transactions'", "transactions");
    found = true;
    if (value.get_array().get(items) != simdjson::SUCCESS) {
      return WrongType("transactions", "an array", value);
    }
  }
  if (!found) return InvalidArgument("transactions is required", "transactions");
  size_t count = items.size();
  if (count == 0) return InvalidArgument("transactions is empty", "transactions");
  if (count > max_items) {
    return InvalidArgument("a batch holds at most " + std::to_string(max_items) +
                               " transactions; this one has " + std::to_string(count),
                           "transactions");
  }
  std::vector<Result<Transaction>> out;
  out.reserve(count);
  size_t index = 0;
  for (element item : items) {
    Result<Transaction> txn = DecodeTransaction(item, impl_->limits);
    if (txn.ok()) {
      out.push_back(std::move(txn));
    } else {
      out.push_back(txn.status().WithFieldPrefix("transactions[" + std::to_string(index) + "]"));
    }
    ++index;
  }
  return out;
}

std::string CanonicalTransactionJson(const Transaction& txn) {
  std::string out;
  out.reserve(512);  // a typical transaction's size: no reallocation while it grows
  JsonWriter w(out);
  auto party = [&w](std::string_view key, const Party& p) {
    w.Key(key).BeginObject().Key("account").String(p.ref.account);
    if (!p.ref.bank.empty()) w.Key("bank").String(p.ref.bank);
    if (!p.country.empty()) w.Key("country").String(p.country);
    if (!p.name.empty()) w.Key("name").String(p.name);
    w.EndObject();
  };
  w.BeginObject();
  w.Key("transaction_id").String(txn.transaction_id);
  w.Key("timestamp").String(FormatRfc3339Micros(txn.timestamp_us));
  w.Key("amount").String(txn.amount.ToDecimalString());
  w.Key("currency").String(txn.amount.currency().code);
  party("sender", txn.sender);
  party("receiver", txn.receiver);
  if (!txn.channel.empty()) w.Key("channel").String(txn.channel);
  if (!txn.type.empty()) w.Key("type").String(txn.type);
  if (!txn.remittance.empty()) w.Key("remittance").String(txn.remittance);
  w.Key("priority").String(PriorityName(txn.priority));
  if (txn.deadline_ms) w.Key("deadline_ms").Int(*txn.deadline_ms);
  if (!txn.metadata.empty()) {
    auto sorted = txn.metadata;
    std::sort(sorted.begin(), sorted.end());
    w.Key("metadata").BeginObject();
    for (const auto& [k, v] : sorted) w.Key(k).String(v);
    w.EndObject();
  }
  if (!txn.payment.empty()) {
    w.Key("payment");
    WritePaymentJson(w, txn.payment);
  }
  w.EndObject();
  return out;
}

}  // namespace verdict
