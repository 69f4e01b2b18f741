// Cycle index: detects whether a transfer S→R closes a short cycle of recent transfers, using
// only the two accounts' own state (so it works under the store's two-stripe locking).
// Definition: S→R at time t closes a cycle of length k (2..4) when there is a time-respecting
// path R → … → S of k−1 earlier transfers (each hop after the previous one) whose first hop
// is within cycle_window before t. Each account keeps its direct senders (the received side's
// peers), its 2-hop predecessors and its 3-hop predecessors; a transfer S→R pushes S's direct
// senders into R's 2-hop set and S's 2-hop set into R's 3-hop set. Sets are bounded (newest
// paths kept), so very busy paths can be missed, never invented (up to 32-bit hash collisions).
// Stateless functions; callers hold both accounts' stripes.
#pragma once

#include <cstdint>

#include "features/account_state.h"
#include "features/feature_options.h"

namespace verdict {

struct CycleHits {
  bool length2 = false;
  bool length3 = false;
  bool length4 = false;
};

CycleHits DetectCycles(const AccountState& sender, uint32_t receiver_hash, int64_t timestamp_us,
                       const FeatureOptions& options);

// Applies S→R to R's predecessor sets. Call before S's and R's peers record this transfer.
void PropagatePaths(const AccountState& sender, AccountState& receiver, uint32_t receiver_hash,
                    int64_t timestamp_us, const FeatureOptions& options);

}  // namespace verdict
