// WarmState: a standby node's copy of the cluster journal's account states, kept close to
// PostgreSQL's by reading, every round, only the states written since the last round (their
// `seq` column). When the standby becomes the owner, its journal's recovery takes the states
// from here after one last catch-up, instead of reading every row: the takeover then costs the
// states written since the last round, not all of them (DESIGN §9, the hot standby).
// Thread-safe: one mutex; a catch-up and a recovery may come from different threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cluster/pg_journal_backend.h"
#include "common/mutex.h"
#include "common/result.h"

namespace verdict::cluster {

class WarmState {
 public:
  // Reads the states written since the last catch-up (every state, the first time).
  Status CatchUp(const PgJournalBackend& backend) EXCLUDES(mu_);
  // Catches up, then calls fn for every state, if the copy is whole: true. False (fn not
  // called) when a state was erased since it was read (the copy then holds more keys than
  // PostgreSQL): the caller reads every row instead.
  Result<bool> ForEachIfWhole(
      const PgJournalBackend& backend,
      const std::function<Status(std::string_view key, std::string_view value)>& fn) EXCLUDES(mu_);
  // Forgets every state (the owner keeps its states in its engine).
  void Clear() EXCLUDES(mu_);
  size_t size() const EXCLUDES(mu_);

 private:
  Status CatchUpLocked(const PgJournalBackend& backend) REQUIRES(mu_);

  mutable Mutex mu_;
  std::unordered_map<std::string, std::string> states_ GUARDED_BY(mu_);
  // The highest record whose states have been read (0: none yet).
  uint64_t seq_ GUARDED_BY(mu_) = 0;
};

}  // namespace verdict::cluster
