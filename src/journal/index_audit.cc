#include "journal/index_audit.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "journal/digest.h"
#include "journal/index_keys.h"
#include "journal/stored_record.h"

namespace verdict::journal {
namespace {

std::string_view IdKey(const Uuid& id) {
  return std::string_view(reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size());
}

// The by_account keys `record` (stored as `seq`) is indexed under.
std::vector<std::string> AccountKeysOf(const JournalRecord& record, uint64_t seq,
                                       const PayloadCipher* cipher) {
  if (record.kind == RecordKind::kAdminEvent) return {AdminEventKey(record.tenant, seq)};
  std::vector<std::string> keys;
  for (const std::string& account : IndexedAccounts(cipher, record)) {
    keys.push_back(AccountKey(record.tenant, account, seq));
  }
  return keys;
}

// Whether the family's entry (key, value) is one that the record it reaches implies.
bool Accounted(const JournalStore& store, Cf cf, std::string_view key, std::string_view value,
               const PayloadCipher* cipher) {
  const uint64_t seq = cf == Cf::kByAccount ? AccountKeySeq(key) : ParseSeqKey(value);
  if (seq == 0) return false;
  Result<std::optional<std::string>> stored = store.Get(Cf::kRecords, SeqKey(seq));
  if (!stored.ok() || !stored->has_value()) return false;
  Result<JournalRecord> record = DecodeStoredEntry(**stored, cipher);
  if (!record.ok()) return false;
  if (cf == Cf::kByAccount) {
    const std::vector<std::string> keys = AccountKeysOf(*record, seq, cipher);
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  }
  if (record->kind == RecordKind::kAdminEvent) return false;
  return cf == Cf::kByDecision ? key == IdKey(record->decision.decision_id)
                               : key == IndexedTransactionKey(cipher, record->tenant,
                                                              record->decision.transaction_id);
}

// An index key as a report can show it: a decision id as a UUID, other keys with their
// separators and binary sequence numbers escaped.
std::string Printable(Cf cf, std::string_view key) {
  if (cf == Cf::kByDecision && key.size() == 16) {
    Uuid id;
    std::copy(key.begin(), key.end(), reinterpret_cast<char*>(id.bytes.data()));
    return id.ToString();
  }
  std::string out;
  for (char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte >= 0x20 && byte < 0x7f ? std::string(1, c) : "\\x" + ToHex(std::string(1, c));
  }
  return out;
}

// The problem with family `cf` when it holds more than `expected` entries; empty otherwise.
Result<std::string> CheckFamily(const JournalStore& store, Cf cf, uint64_t expected,
                                const PayloadCipher* cipher) {
  uint64_t held = 0;
  {
    std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(cf);
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++held;
    VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading an index"));
  }
  if (held == expected) return std::string();
  std::string problem = "the " + std::string(CfName(cf)) + " index holds " + std::to_string(held) +
                        " entries where the records imply " + std::to_string(expected);
  std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(cf);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!Accounted(store, cf, it->key().ToStringView(), it->value().ToStringView(), cipher)) {
      return problem + "; its entry " + Printable(cf, it->key().ToStringView()) +
             " is not one its record implies";
    }
  }
  VERDICT_RETURN_IF_ERROR(FromRocks(it->status(), "reading an index"));
  return problem;
}

}  // namespace

void IndexCounts::Add(const JournalRecord& record) {
  if (record.kind == RecordKind::kAdminEvent) {
    ++by_account;
    return;
  }
  ++by_decision;
  ++by_transaction;
  by_account += IndexedAccounts(nullptr, record).size();  // one per distinct account
}

Result<std::string> FindUnaccountedIndexEntry(const JournalStore& store,
                                              const IndexCounts& expected,
                                              const PayloadCipher* cipher) {
  VERDICT_ASSIGN_OR_RETURN(std::string problem,
                           CheckFamily(store, Cf::kByDecision, expected.by_decision, cipher));
  if (problem.empty()) {
    VERDICT_ASSIGN_OR_RETURN(
        problem, CheckFamily(store, Cf::kByTransaction, expected.by_transaction, cipher));
  }
  if (problem.empty()) {
    VERDICT_ASSIGN_OR_RETURN(problem,
                             CheckFamily(store, Cf::kByAccount, expected.by_account, cipher));
  }
  return problem;
}

}  // namespace verdict::journal
