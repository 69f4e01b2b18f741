// verdict's own labelled-transaction CSV (the simulator's output; docs/sim.md): the header and
// the formatting of one row. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "formats/labelled_transaction.h"

namespace verdict {

inline constexpr std::string_view kVerdictCsvHeader =
    "transaction_id,timestamp,amount,currency,sender_account,sender_bank,sender_country,"
    "receiver_account,receiver_bank,receiver_country,channel,type,is_laundering,typology,"
    "pattern_id";
inline constexpr size_t kVerdictCsvFields = 15;

// Appends one row (no newline) for `t` to *out.
void AppendVerdictCsvRow(const LabelledTransaction& t, std::string* out);

}  // namespace verdict
