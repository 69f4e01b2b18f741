// Turns a stored journal entry (framing + payload, maybe encrypted) back into a JournalRecord.
// Stateless; thread-safe (PayloadCipher is). Never crashes on arbitrary bytes.
#pragma once

#include <string_view>

#include "common/result.h"
#include "journal/envelope.h"
#include "journal/record.h"
#include "journal/store.h"

namespace verdict::journal {

// `cipher` may be null; an encrypted entry then fails with kFailedPrecondition.
Result<JournalRecord> DecodeStoredEntry(std::string_view stored, const PayloadCipher* cipher);

// Unwraps every data key in the store's meta family into `cipher`; sets *max_id (0 if none).
Status LoadDataKeys(const JournalStore& store, PayloadCipher& cipher, uint32_t* max_id);

}  // namespace verdict::journal
