#include "policy/txn_fields.h"

#include <array>

namespace verdict {
namespace {

constexpr std::array<TxnFieldInfo, static_cast<size_t>(TxnField::kCount)> kFields = {{
    {"txn.amount", TxnField::kAmount, ValueType::kMoney},
    {"txn.hour", TxnField::kHour, ValueType::kNumber},
    {"txn.id", TxnField::kId, ValueType::kString},
    {"txn.currency", TxnField::kCurrency, ValueType::kString},
    {"txn.sender.account", TxnField::kSenderAccount, ValueType::kString},
    {"txn.sender.bank", TxnField::kSenderBank, ValueType::kString},
    {"txn.sender.country", TxnField::kSenderCountry, ValueType::kString},
    {"txn.sender.name", TxnField::kSenderName, ValueType::kString},
    {"txn.receiver.account", TxnField::kReceiverAccount, ValueType::kString},
    {"txn.receiver.bank", TxnField::kReceiverBank, ValueType::kString},
    {"txn.receiver.country", TxnField::kReceiverCountry, ValueType::kString},
    {"txn.receiver.name", TxnField::kReceiverName, ValueType::kString},
    {"txn.channel", TxnField::kChannel, ValueType::kString},
    {"txn.type", TxnField::kType, ValueType::kString},
    {"txn.remittance", TxnField::kRemittance, ValueType::kString},
    {"txn.priority", TxnField::kPriority, ValueType::kString},
}};

}  // namespace

std::span<const TxnFieldInfo> AllTxnFields() { return kFields; }

std::optional<TxnFieldInfo> FindTxnField(std::string_view path) {
  for (const TxnFieldInfo& f : kFields) {
    if (f.path == path) return f;
  }
  return std::nullopt;
}

std::string TxnFieldList() {
  std::string out;
  for (const TxnFieldInfo& f : kFields) {
    if (!out.empty()) out += ", ";
    out += f.path;
  }
  return out;
}

}  // namespace verdict
