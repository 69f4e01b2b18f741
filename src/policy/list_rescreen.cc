#include "policy/list_rescreen.h"

#include <cstdio>
#include <unordered_set>

#include "common/sha256.h"
#include "policy/name_normalizer.h"

namespace verdict {
namespace {

std::string JoinTokens(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& t : tokens) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

std::unordered_set<std::string> KeysOf(const Watchlist* list) {
  std::unordered_set<std::string> keys;
  if (list == nullptr) return keys;
  keys.reserve(list->size());
  for (const WatchlistEntry& e : list->entries()) keys.insert(ListEntryKey(e));
  return keys;
}

Watchlist::Input InputOf(const WatchlistEntry& e) {
  return Watchlist::Input{e.id, e.name, e.primary, e.alias_kind};
}

std::string InputKey(const Watchlist::Input& in) {
  // The id and a unit separator cannot collide with another id's prefix: ids hold no control
  // characters (the readers refuse them) and tokens are lower-case alphanumerics.
  return in.id + '\x1f' + JoinTokens(NormalizeNameTokens(in.name));
}

}  // namespace

std::string ListEntryKey(const WatchlistEntry& entry) {
  return entry.id + '\x1f' + JoinTokens(entry.tokens);
}

std::vector<Watchlist::Input> AddedEntries(const Watchlist* previous, const Watchlist& next) {
  const std::unordered_set<std::string> before = KeysOf(previous);
  std::unordered_set<std::string> seen;
  std::vector<Watchlist::Input> out;
  for (const WatchlistEntry& e : next.entries()) {
    std::string key = ListEntryKey(e);
    if (before.count(key) != 0 || !seen.insert(std::move(key)).second) continue;
    out.push_back(InputOf(e));
  }
  return out;
}

std::vector<Watchlist::Input> PendingDelta(const std::vector<Watchlist::Input>& delta,
                                           const Watchlist* previous, const Watchlist& next) {
  const std::unordered_set<std::string> listed = KeysOf(&next);
  std::unordered_set<std::string> seen;
  std::vector<Watchlist::Input> out;
  for (const Watchlist::Input& in : delta) {
    std::string key = InputKey(in);
    if (listed.count(key) == 0 || !seen.insert(std::move(key)).second) continue;
    out.push_back(in);
  }
  for (Watchlist::Input& in : AddedEntries(previous, next)) {
    if (seen.insert(InputKey(in)).second) out.push_back(std::move(in));
  }
  return out;
}

std::vector<RescreenHit> ScreenAgainstAdded(const Watchlist& added,
                                            const std::vector<std::string>& parties,
                                            double min_score) {
  std::vector<RescreenHit> hits;
  if (added.size() == 0) return hits;
  for (size_t i = 0; i < parties.size(); ++i) {
    const WatchlistMatch m = added.Match(parties[i]);
    if (m.entry >= 0 && m.score >= min_score) hits.push_back({i, m.entry, m.score});
  }
  return hits;
}

std::string RescreenCaseId(std::string_view tenant, std::string_view list,
                           const WatchlistEntry& entry, std::string_view party_name) {
  std::string material = "verdict-rescreen-v1\n";
  const std::string key = ListEntryKey(entry);
  for (std::string_view part : {tenant, list, std::string_view(key)}) {
    material += std::to_string(part.size()) + ":" + std::string(part) + "\n";
  }
  const std::string party = JoinTokens(NormalizeNameTokens(party_name));
  material += std::to_string(party.size()) + ":" + party + "\n";
  return "rescreen-" + Sha256Hex(material).substr(0, 32);
}

std::string RescreenReason(std::string_view list, std::string_view version, std::string_view role,
                           std::string_view party_name, const WatchlistEntry& entry, double score) {
  char formatted[32];
  std::snprintf(formatted, sizeof formatted, "%.3f", score);
  const std::string alias =
      entry.primary.empty() ? "" : " (" + entry.alias_kind + " alias of '" + entry.primary + "')";
  return "@" + std::string(list) + " version " + std::string(version) + ": " + std::string(role) +
         " '" + std::string(party_name) + "' matches '" + entry.name + "'" + alias + " [" +
         entry.id + "] score " + formatted;
}

}  // namespace verdict
