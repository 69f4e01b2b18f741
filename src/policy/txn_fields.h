// The transaction fields a policy can read (txn.amount, txn.sender.country, ...): names,
// types and accessors, resolved once at check time to a TxnField id. Static; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/transaction.h"
#include "policy/ast.h"

namespace verdict {

enum class TxnField : uint8_t {
  kAmount,  // money
  kHour,    // number: UTC hour of day 0-23 of txn.timestamp
  kId,
  kCurrency,
  kSenderAccount,
  kSenderBank,
  kSenderCountry,
  kSenderName,
  kReceiverAccount,
  kReceiverBank,
  kReceiverCountry,
  kReceiverName,
  kChannel,
  kType,
  kRemittance,
  kPriority,
  kCount,
};

struct TxnFieldInfo {
  std::string_view path;  // "txn.sender.country"
  TxnField field;
  ValueType type;
};

// Every field, for the checker and for error messages.
std::span<const TxnFieldInfo> AllTxnFields();
std::optional<TxnFieldInfo> FindTxnField(std::string_view path);
// "txn.amount, txn.hour, ..." for messages.
std::string TxnFieldList();

// A string field's value (empty when the transaction does not carry it).
inline std::string_view TxnString(const Transaction& txn, TxnField field) {
  switch (field) {
    case TxnField::kId:
      return txn.transaction_id;
    case TxnField::kCurrency:
      return txn.amount.valid() ? txn.amount.currency().code : "";
    case TxnField::kSenderAccount:
      return txn.sender.ref.account;
    case TxnField::kSenderBank:
      return txn.sender.ref.bank;
    case TxnField::kSenderCountry:
      return txn.sender.country;
    case TxnField::kSenderName:
      return txn.sender.name;
    case TxnField::kReceiverAccount:
      return txn.receiver.ref.account;
    case TxnField::kReceiverBank:
      return txn.receiver.ref.bank;
    case TxnField::kReceiverCountry:
      return txn.receiver.country;
    case TxnField::kReceiverName:
      return txn.receiver.name;
    case TxnField::kChannel:
      return txn.channel;
    case TxnField::kType:
      return txn.type;
    case TxnField::kRemittance:
      return txn.remittance;
    case TxnField::kPriority:
      return PriorityName(txn.priority);
    default:
      return "";
  }
}

}  // namespace verdict
