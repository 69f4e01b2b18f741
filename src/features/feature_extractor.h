// Computes a transaction's features from its accounts' state as of its timestamp, and applies
// the transaction to that state afterwards. Stateless; callers hold the accounts' stripes.
#pragma once

#include "core/transaction.h"
#include "features/account_state.h"
#include "features/feature_vector.h"

namespace verdict {

// Features reflect only transactions applied before this one (point-in-time, I3).
void ExtractFeatures(const Transaction& txn, AccountState& sender, AccountState& receiver,
                     FeatureVector* out);

void ApplyTransaction(const Transaction& txn, AccountState& sender, AccountState& receiver);

}  // namespace verdict
