#include "cluster/warm_state.h"

#include <algorithm>

namespace verdict::cluster {

Status WarmState::CatchUp(const PgJournalBackend& backend) {
  MutexLock lock(mu_);
  return CatchUpLocked(backend);
}

Status WarmState::CatchUpLocked(const PgJournalBackend& backend) {
  // Rows of one group share its seq, and a group's rows commit together: reading from seq_ + 1
  // never misses part of a group already read.
  uint64_t highest = seq_;
  VERDICT_RETURN_IF_ERROR(
      backend.ScanStateSince(seq_, [&](std::string_view key, std::string_view value, uint64_t seq) {
        mu_.AssertHeld();  // called back within this function, under the lock
        states_.insert_or_assign(std::string(key), std::string(value));
        highest = std::max(highest, seq);
        return Status::Ok();
      }));
  seq_ = highest;
  return Status::Ok();
}

Result<bool> WarmState::ForEachIfWhole(
    const PgJournalBackend& backend,
    const std::function<Status(std::string_view key, std::string_view value)>& fn) {
  MutexLock lock(mu_);
  VERDICT_RETURN_IF_ERROR(CatchUpLocked(backend));
  // Writes only add or replace keys, so the copy holds every stored key; it holds more only if
  // one was erased since it was read.
  VERDICT_ASSIGN_OR_RETURN(uint64_t stored, backend.CountState());
  if (stored != states_.size()) return false;
  for (const auto& [key, value] : states_) VERDICT_RETURN_IF_ERROR(fn(key, value));
  return true;
}

void WarmState::Clear() {
  MutexLock lock(mu_);
  states_.clear();
  seq_ = 0;
}

size_t WarmState::size() const {
  MutexLock lock(mu_);
  return states_.size();
}

}  // namespace verdict::cluster
