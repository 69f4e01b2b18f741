#include "features/cycle_index.h"

#include <algorithm>

namespace verdict {

namespace {

uint32_t WindowStartS(int64_t timestamp_us, const FeatureOptions& options) {
  return ToUnixSeconds(timestamp_us - options.cycle_window_us);
}

// Finds `hash` in paths[begin, end) (sorted by hash).
const PathEntry* FindIn(ConstStateArray<PathEntry> paths, uint32_t begin, uint32_t end,
                        uint32_t hash) {
  const PathEntry* first = paths.begin() + begin;
  const PathEntry* last = paths.begin() + end;
  const PathEntry* it = std::lower_bound(first, last, hash,
                                         [](const PathEntry& e, uint32_t h) { return e.hash < h; });
  return it != last && it->hash == hash ? it : nullptr;
}

// Inserts or refreshes (hash, start_s) in the part [begin, begin + count); returns the new count.
uint32_t Upsert(StateArray<PathEntry> paths, uint32_t begin, uint32_t count, uint32_t hash,
                uint32_t start_s, uint32_t max_count) {
  uint32_t i = begin;
  const uint32_t end = begin + count;
  while (i < end && paths[i].hash < hash) ++i;
  if (i < end && paths[i].hash == hash) {
    paths[i].start_s = std::max(paths[i].start_s, start_s);
    return count;
  }
  if (count >= max_count) {
    uint32_t oldest = begin;
    for (uint32_t j = begin + 1; j < end; ++j) {
      if (paths[j].start_s < paths[oldest].start_s) oldest = j;
    }
    if (paths[oldest].start_s >= start_s) return count;  // every kept path is newer
    paths.Erase(oldest);
    if (oldest < i) --i;
    --count;
  }
  paths.Insert(i, PathEntry{hash, start_s});
  return count + 1;
}

}  // namespace

CycleHits DetectCycles(const AccountState& sender, uint32_t receiver_hash, int64_t timestamp_us,
                       const FeatureOptions& options) {
  CycleHits hits;
  const uint32_t from_s = WindowStartS(timestamp_us, options);
  const uint32_t now_s = ToUnixSeconds(timestamp_us);
  if (const PeerEntry* p = FindPeer(sender.in(), receiver_hash)) {
    hits.length2 = p->last_s >= from_s && p->first_s <= now_s;
  }
  const ConstStateArray<PathEntry> paths = sender.paths();
  const uint32_t two_hop_count = sender.two_hop_count();
  if (const PathEntry* e = FindIn(paths, 0, two_hop_count, receiver_hash)) {
    hits.length3 = e->start_s >= from_s && e->start_s <= now_s;
  }
  if (const PathEntry* e = FindIn(paths, two_hop_count, paths.size(), receiver_hash)) {
    hits.length4 = e->start_s >= from_s && e->start_s <= now_s;
  }
  return hits;
}

void PropagatePaths(const AccountState& sender, AccountState& receiver, uint32_t receiver_hash,
                    int64_t timestamp_us, const FeatureOptions& options) {
  if (&sender == &receiver) return;
  const uint32_t from_s = WindowStartS(timestamp_us, options);
  // Drop paths that left the window, keeping the two parts' boundary right.
  StateArray<PathEntry> paths = receiver.paths();
  uint32_t two_hop = 0;
  uint32_t index = 0;
  const uint32_t old_two_hop = receiver.two_hop_count();
  paths.RetainIf([&](const PathEntry& e) {
    const bool keep = e.start_s >= from_s;
    if (keep && index < old_two_hop) ++two_hop;
    ++index;
    return keep;
  });

  // `sender` and `receiver` are distinct objects here, so reading one while writing the other
  // is safe. 3-hop first: it sits after the 2-hop part, whose growth shifts it.
  uint32_t three_hop = paths.size() - two_hop;
  const ConstStateArray<PathEntry> sender_paths = sender.paths();
  for (uint32_t i = 0; i < sender.two_hop_count(); ++i) {
    const PathEntry& e = sender_paths[i];
    if (e.start_s < from_s || e.hash == receiver_hash) continue;
    three_hop = Upsert(paths, two_hop, three_hop, e.hash, e.start_s, options.max_paths);
  }
  for (const PeerEntry& p : sender.in().peers()) {
    if (p.last_s < from_s || p.hash == receiver_hash) continue;
    two_hop = Upsert(paths, 0, two_hop, p.hash, p.last_s, options.max_paths);
  }
  receiver.set_two_hop_count(two_hop);
}

}  // namespace verdict
