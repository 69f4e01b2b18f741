// Strict JSON decoding of the Transaction of DESIGN.md §7 (simdjson DOM), and its canonical
// encoding for the journal. A TransactionDecoder owns a reusable simdjson parser: use one per
// thread. The free functions are stateless and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/transaction.h"

namespace verdict {

// Bounds on what one transaction may carry; longer values are refused, not truncated.
struct TransactionLimits {
  size_t max_id_length = 128;
  size_t max_account_length = 64;
  size_t max_bank_length = 64;
  size_t max_name_length = 140;  // ISO 20022 Max140Text
  size_t max_remittance_length = 1024;
  size_t max_code_length = 32;  // channel, type
  size_t max_metadata_entries = 32;
  size_t max_metadata_key_length = 64;
  size_t max_metadata_value_length = 256;
  int32_t max_deadline_ms = 60'000;
};

class TransactionDecoder {
 public:
  explicit TransactionDecoder(TransactionLimits limits = {});
  ~TransactionDecoder();
  TransactionDecoder(const TransactionDecoder&) = delete;
  TransactionDecoder& operator=(const TransactionDecoder&) = delete;

  // One transaction object. Errors name the field ("amount", "sender.account").
  Result<Transaction> DecodeOne(std::string_view json);

  // `{"transactions": [...]}` with 1..max_items items. The outer Result fails when the
  // envelope is bad; each item has its own Result, with fields prefixed "transactions[i]".
  Result<std::vector<Result<Transaction>>> DecodeBatch(std::string_view json, size_t max_items);

 private:
  struct Impl;
  Impl* impl_;
};

// Canonical JSON of a transaction: fixed key order, amounts as decimal strings with the
// currency's fraction digits, timestamps in UTC with microseconds, absent optional fields
// omitted. Two requests that mean the same transaction encode to the same bytes, so its
// SHA-256 identifies the input in the journal and for idempotency checks.
std::string CanonicalTransactionJson(const Transaction& txn);

}  // namespace verdict
