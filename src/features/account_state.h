// AccountState: what verdict remembers of one account between transactions (the skeleton's
// 1 h / 24 h sent and received windows). Owned by the AccountStore; guarded by its stripe lock.
#pragma once

#include <cstdint>

#include "features/sliding_window.h"

namespace verdict {

struct AccountState {
  AccountState();
  SlidingWindows sent;      // amounts this account sent
  SlidingWindows received;  // amounts this account received
  int64_t first_seen_us = INT64_MAX;
  int64_t last_seen_us = INT64_MIN;
};

// Window lengths shared by `sent` and `received`, in FeatureIndex order (1 h, then 24 h).
inline constexpr int64_t kWindow1hUs = int64_t{3600} * 1'000'000;
inline constexpr int64_t kWindow24hUs = 24 * kWindow1hUs;
// How late (behind the account's newest event) a transaction may arrive and still get exact
// windows; later ones may miss events already discarded.
inline constexpr int64_t kLateToleranceUs = kWindow1hUs;

}  // namespace verdict
