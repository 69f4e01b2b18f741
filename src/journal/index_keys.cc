#include "journal/index_keys.h"

#include <algorithm>

#include "journal/store.h"

namespace verdict::journal {

std::string IndexedTransactionKey(const PayloadCipher* cipher, std::string_view tenant,
                                  std::string_view transaction_id) {
  if (cipher != nullptr) {
    if (std::optional<std::string> hashed = cipher->HashedTransactionId(tenant, transaction_id)) {
      return TransactionKey(tenant, *hashed);
    }
  }
  return TransactionKey(tenant, transaction_id);
}

std::string IndexedAccount(const PayloadCipher* cipher, std::string_view tenant,
                           std::string_view account) {
  if (cipher != nullptr) {
    if (std::optional<std::string> hashed = cipher->HashedAccount(tenant, account)) {
      return std::move(*hashed);
    }
  }
  return std::string(account);
}

std::vector<std::string> IndexedAccounts(const PayloadCipher* cipher, const JournalRecord& record) {
  std::vector<std::string> indexed;
  if (record.kind == RecordKind::kAdminEvent) return indexed;
  const std::vector<std::string>& accounts = record.accounts;
  indexed.reserve(accounts.size());
  for (auto account = accounts.begin(); account != accounts.end(); ++account) {
    if (std::find(accounts.begin(), account, *account) != account) {
      continue;  // sender == receiver: one index entry
    }
    indexed.push_back(IndexedAccount(cipher, record.tenant, *account));
  }
  return indexed;
}

}  // namespace verdict::journal
