// IndexAudit: the journal's indexes (decision id, transaction, account and admin event) checked
// whole against the records they index. The hash chain covers the records only: an index entry
// added or edited on disk could answer a lookup with another record, and one removed could hide
// an account's decision. The verifier checks that every record's own entries are in place
// (CheckPayload); this counts the entries each family should hold and, when a family holds
// more, names the first entry that no record accounts for. Single-threaded; a read-only view of
// the store.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "journal/envelope.h"
#include "journal/record.h"
#include "journal/store.h"

namespace verdict::journal {

// The index entries that the records seen so far imply, family by family.
struct IndexCounts {
  uint64_t by_decision = 0;
  uint64_t by_transaction = 0;
  uint64_t by_account = 0;  // accounts' entries and admin events'

  void Add(const JournalRecord& record);
};

// Empty when each index family of `store` holds exactly `expected` entries (every one of
// which the verifier has found in place); otherwise the problem, naming the first entry that no
// record accounts for. `cipher` decrypts the records such an entry reaches (null: none are
// encrypted).
Result<std::string> FindUnaccountedIndexEntry(const JournalStore& store,
                                              const IndexCounts& expected,
                                              const PayloadCipher* cipher);

}  // namespace verdict::journal
