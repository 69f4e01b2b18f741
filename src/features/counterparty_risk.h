// Counterparty risk (features-3): which transfers are unusual; per account a fading count of its
// unusual transfers ("own") and the highest own count of a counterparty ("peer", 2 hops, kept in
// the account's own state). Stateless functions; callers hold both accounts' stripes.
#pragma once

#include <cstdint>

#include "features/account_state.h"
#include "features/feature_options.h"

namespace verdict {

// Unusual: the sender already paid this receiver within unusual_repeat_window before t (a split
// or repeated transfer), or the amount lies more than unusual_log_zscore standard deviations
// from the sender's usual outgoing amount (`sender_log_zscore`, the sender_amount_log_zscore
// feature; 0 without history). Read from the state before the transfer is applied.
bool IsUnusualTransfer(const AccountState& sender, uint32_t receiver_hash, int64_t timestamp_us,
                       double sender_log_zscore, const FeatureOptions& options);

struct RiskLevels {
  double own = 0;       // unusual transfers of the account, each fading with the half-life
  double peer_max = 0;  // the highest `own` of a counterparty at their latest transfer, fading
};

// The account's levels as of `timestamp_us` (faded from their last update; an earlier time, a
// late event, sees them unfaded).
RiskLevels ReadRisk(const AccountState& account, int64_t timestamp_us,
                    const FeatureOptions& options);

// Applies S→R at `timestamp_us`: both accounts' levels fade to t, each gains 1 when the
// transfer is unusual, then each takes the other's new `own` into its `peer_max`. A transfer to
// oneself counts once and is no counterparty.
void ApplyRisk(AccountState& sender, AccountState& receiver, bool unusual, int64_t timestamp_us,
               const FeatureOptions& options);

}  // namespace verdict
