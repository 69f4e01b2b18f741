// Continuous screening's pure parts (docs/policy.md, "Continuous screening"): the names a new
// version of a `names` list adds to the one screened before (its delta), the parties those
// names hit, and the identity of such a hit, which makes a case for it at most once however
// often the list is re-imported. Screening against the delta alone is exactly "the hits the
// previous version did not have": a name already listed gave the same score before. Pure
// functions and value types; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "policy/watchlist.h"

namespace verdict {

// A listed name's identity across versions: the target's id and the name's normalized tokens
// (a change of case or spacing is not a new name).
std::string ListEntryKey(const WatchlistEntry& entry);

// The entries of `next` whose key no entry of `previous` has; every entry when `previous` is
// null (a list the previous policy did not declare). In `next`'s order, as Build inputs.
std::vector<Watchlist::Input> AddedEntries(const Watchlist* previous, const Watchlist& next);

// `delta` without the entries `next` no longer lists, plus what `next` adds to `previous`:
// the delta still owed when a version replaces one whose re-screen did not finish.
std::vector<Watchlist::Input> PendingDelta(const std::vector<Watchlist::Input>& delta,
                                           const Watchlist* previous, const Watchlist& next);

struct RescreenHit {
  size_t party = 0;  // index into the screened names
  int entry = -1;    // index into the delta's entries()
  double score = 0;
};

// Each name of `parties` whose best match in `added` scores at least `min_score`, in order.
std::vector<RescreenHit> ScreenAgainstAdded(const Watchlist& added,
                                            const std::vector<std::string>& parties,
                                            double min_score);

// The case id of a hit: "rescreen-" and 32 hex digits of SHA-256 over the tenant, the list, the
// entry's key and the party's normalized name. The same hit has the same id in every run.
std::string RescreenCaseId(std::string_view tenant, std::string_view list,
                           const WatchlistEntry& entry, std::string_view party_name);

// The hit in the words of a screening reason: "@sanctions version 2: receiver 'Ivan Petrov'
// matches 'Ivan Petrov' (alias alias of 'Ivan Petrovich Sidorov') [NK-1] score 1.000".
std::string RescreenReason(std::string_view list, std::string_view version, std::string_view role,
                           std::string_view party_name, const WatchlistEntry& entry, double score);

}  // namespace verdict
