// The form account numbers and transaction ids take in the journal's index keys: a keyed hash
// (IndexIdHasher) when the journal's PayloadCipher holds an index key, the id itself otherwise
// (payloads in the clear, or an encrypted store written before index keys were hashed: its
// keys stay as they are, docs/architecture.md "Identifiers at rest"). Every writer and reader
// of the by_transaction and by_account indexes goes through these, so the two forms never mix
// in one store. Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "journal/envelope.h"
#include "journal/record.h"

namespace verdict::journal {

// The by_transaction key of (tenant, transaction id): TransactionKey over the id's index form.
std::string IndexedTransactionKey(const PayloadCipher* cipher, std::string_view tenant,
                                  std::string_view transaction_id);
// An account's index form (the account part of AccountKey / AccountPrefix).
std::string IndexedAccount(const PayloadCipher* cipher, std::string_view tenant,
                           std::string_view account);
// The index forms of a decision's distinct accounts (sender == receiver: one), in the record's
// order; none for an admin event.
std::vector<std::string> IndexedAccounts(const PayloadCipher* cipher, const JournalRecord& record);

}  // namespace verdict::journal
