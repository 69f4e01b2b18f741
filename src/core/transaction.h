// Transaction: one payment as verdict sees it, after decoding and validation. Value type,
// built by a decoder (src/api, src/formats) and then read-only; safe to share once built.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/money.h"

namespace verdict {

// An account as the payment names it: its identifier and, when known, its bank (BIC).
struct AccountRef {
  std::string account;
  std::string bank;
};

struct Party {
  AccountRef ref;
  std::string country;  // ISO 3166-1 alpha-2, or empty when not given
  std::string name;
};

// A bank a payment message names in a role beyond the parties' own banks (intermediary,
// correspondent, instructing/instructed agent). `bic` is empty when the message named the
// bank by name and address only.
struct AgentRef {
  std::string role;  // "instructing", "instructed", "intermediary1".."intermediary3",
                     // "sender_correspondent", "receiver_correspondent", "reimbursement"
  std::string bic;
  std::string name;
  friend bool operator==(const AgentRef&, const AgentRef&) = default;
};

// A charge a payment message states: who takes it and how much.
struct Charge {
  std::string kind;  // "sender" (MT 71F), "receiver" (MT 71G), "agent" (ISO ChrgsInf)
  Money amount;
  std::string agent;  // BIC of the agent taking the charge, when given
  friend bool operator==(const Charge&, const Charge&) = default;
};

// What a payment message (ISO 20022, SWIFT MT) carried beyond the core fields. Empty for
// JSON and CSV input; filled by src/formats decoders.
// The most the journal's JSON form reads back (api/payment_json.cc), which the decoders must
// not exceed either: a decision journaled with more would stop an audit replay at its record.
inline constexpr size_t kMaxPaymentListEntries = 32;  // agents, charges
inline constexpr size_t kMaxPaymentTextBytes = 4096;  // sender_to_receiver
struct PaymentInfo {
  std::string message_type;  // "pacs.008.001.08", "pain.001.001.09", "MT103", "MT202COV"
  std::string message_id;    // GrpHdr/MsgId, or MT :20:
  std::string instruction_id;
  std::string end_to_end_id;
  std::string uetr;             // lower-case UUID (ISO PmtId/UETR, MT block 3 {121:})
  std::string settlement_date;  // "YYYY-MM-DD": IntrBkSttlmDt, ReqdExctnDt, MT 32A date
  std::string charge_bearer;    // ISO ChargeBearerType1Code: DEBT, CRED, SHAR, SLEV
  std::string purpose;          // Purp/Cd or Purp/Prtry; MT 26T
  std::string category_purpose;
  std::optional<Money> instructed_amount;  // InstdAmt, MT 33B
  std::vector<AgentRef> agents;
  std::vector<Charge> charges;
  std::string sender_to_receiver;  // MT 72, ISO InstrForNxtAgt
  bool empty() const { return message_type.empty(); }
  friend bool operator==(const PaymentInfo&, const PaymentInfo&) = default;
};

enum class Priority { kRealtime, kStandard, kBulk };
std::string_view PriorityName(Priority priority);

struct Transaction {
  std::string transaction_id;
  int64_t timestamp_us = 0;  // event time, UTC microseconds
  Money amount;
  Party sender;
  Party receiver;
  std::string channel;  // e.g. "wire", "card"; empty when not given
  std::string type;     // e.g. "transfer", "payment"; empty when not given
  std::string remittance;
  Priority priority = Priority::kStandard;
  std::optional<int32_t> deadline_ms;  // when absent, the priority class's default applies
  std::vector<std::pair<std::string, std::string>> metadata;
  PaymentInfo payment;  // empty unless decoded from a payment message
};

}  // namespace verdict
