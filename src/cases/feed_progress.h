// FeedProgress: the case feed's high-water mark, the journal sequence number up to which every
// review or block decision's case is stored (CaseStore persists it; CatchUp opens what follows
// at the next start). A case that could not be stored holds the mark below it for the rest of
// the process, however many later cases are stored, so that the next start opens it again.
// Value type; not thread-safe (the feed thread owns it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace verdict::cases {

class FeedProgress {
 public:
  // The case of record `seq` was stored (or it opens none), or it could not be. Sequence
  // numbers come in increasing order.
  void Handled(uint64_t seq, bool stored) {
    last_ = std::max(last_, seq);
    if (!stored) limit_ = std::min(limit_, seq - 1);
  }
  // What may be persisted as the mark: 0 while nothing can be.
  uint64_t mark() const { return std::min(last_, limit_); }
  // The last sequence number handled, stored or not.
  uint64_t last() const { return last_; }

 private:
  uint64_t last_ = 0;
  uint64_t limit_ = std::numeric_limits<uint64_t>::max();
};

}  // namespace verdict::cases
