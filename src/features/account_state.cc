#include "features/account_state.h"

#include <algorithm>
#include <cmath>

#include "common/hash.h"

namespace verdict {

namespace {

constexpr int64_t kLongestWindowUs = 30 * kUsPerDay;

uint16_t Sat16(uint32_t v) { return static_cast<uint16_t>(std::min<uint32_t>(v, 0xffff)); }
uint8_t Sat8(uint32_t v) { return static_cast<uint8_t>(std::min<uint32_t>(v, 0xff)); }

void MergeIntoBucket(SideState& side, uint8_t level, uint16_t slot, uint32_t count, float sum,
                     float max, uint32_t near, uint32_t round) {
  auto& b = side.buckets;
  uint32_t i = 0;
  while (i < b.size() && (b[i].level < level || (b[i].level == level && b[i].slot < slot))) ++i;
  if (i < b.size() && b[i].level == level && b[i].slot == slot) {
    b[i].count = Sat16(b[i].count + count);
    b[i].near_count = Sat8(b[i].near_count + near);
    b[i].round_count = Sat16(b[i].round_count + round);
    b[i].sum += sum;
    b[i].max = std::max(b[i].max, max);
    return;
  }
  b.Insert(i, WindowBucket{slot, level, Sat8(near), Sat16(count), Sat16(round), sum, max});
}

void FoldEvent(SideState& side, const RecentEvent& e, bool into_hour) {
  uint8_t level = kLevelDay;
  if (into_hour) {
    const int64_t in_day =
        e.timestamp_us - static_cast<int64_t>(DaySlot(e.timestamp_us)) * kUsPerDay;
    level = static_cast<uint8_t>(kLevelFirstHour + std::clamp<int64_t>(in_day / kUsPerHour, 0, 23));
  }
  MergeIntoBucket(side, level, DaySlot(e.timestamp_us), 1, e.amount_usd, e.amount_usd,
                  (e.flags & kEventNear) ? 1 : 0, (e.flags & kEventRound) ? 1 : 0);
}

// Moves old day buckets into week buckets and drops what no window can reach any more.
void CompactBuckets(SideState& side, int64_t newest_us, const FeatureOptions& options) {
  const int64_t newest_day = DaySlot(newest_us);
  const int64_t ring_horizon = newest_us - kUsPerDay - options.late_tolerance_us;
  bool moved = true;
  while (moved) {
    moved = false;
    for (uint32_t i = 0; i < side.buckets.size(); ++i) {
      const WindowBucket b = side.buckets[i];
      if (b.level == kLevelDay && b.slot < newest_day - kDayBucketsKeptDays) {
        side.buckets.Erase(i);
        MergeIntoBucket(side, kLevelWeek, static_cast<uint16_t>(b.slot / 7), b.count, b.sum, b.max,
                        b.near_count, b.round_count);
        moved = true;
        break;
      }
      if (b.level >= kLevelFirstHour && BucketStartUs(b) + kUsPerHour <= ring_horizon) {
        side.buckets.Erase(i);
        MergeIntoBucket(side, kLevelDay, b.slot, b.count, b.sum, b.max, b.near_count,
                        b.round_count);
        moved = true;
        break;
      }
    }
  }
  const int64_t horizon = newest_us - kLongestWindowUs - options.late_tolerance_us;
  side.buckets.RetainIf(
      [&](const WindowBucket& b) { return BucketStartUs(b) + BucketWidthUs(b) > horizon; });
}

}  // namespace

uint32_t AccountHash32(std::string_view account) {
  return static_cast<uint32_t>(StableHash64(account));
}

uint32_t ToUnixSeconds(int64_t timestamp_us) {
  const int64_t s = timestamp_us / kUsPerSecond;
  return static_cast<uint32_t>(std::clamp<int64_t>(s, 0, 0xffffffffLL));
}

uint16_t DaySlot(int64_t timestamp_us) {
  const int64_t day = timestamp_us / kUsPerDay;
  return static_cast<uint16_t>(std::clamp<int64_t>(day, 0, 0xffff));
}

int64_t BucketStartUs(const WindowBucket& b) {
  if (b.level == kLevelWeek) return static_cast<int64_t>(b.slot) * 7 * kUsPerDay;
  const int64_t day = static_cast<int64_t>(b.slot) * kUsPerDay;
  return b.level == kLevelDay ? day : day + (b.level - kLevelFirstHour) * kUsPerHour;
}

int64_t BucketWidthUs(const WindowBucket& b) {
  return b.level == kLevelDay ? kUsPerDay : b.level == kLevelWeek ? 7 * kUsPerDay : kUsPerHour;
}

int64_t BucketEffectiveStartUs(const WindowBucket& b, int64_t as_of_us) {
  if (b.level == kLevelDay && b.slot < DaySlot(as_of_us) - kDayBucketsKeptDays) {
    return static_cast<int64_t>(b.slot / 7) * 7 * kUsPerDay;
  }
  return BucketStartUs(b);
}

size_t AccountState::HeapBytes() const {
  size_t n = paths.heap_bytes();
  for (const SideState* s : {&out, &in}) {
    n += s->recent.heap_bytes() + s->buckets.heap_bytes() + s->peers.heap_bytes();
  }
  return n;
}

uint32_t AddToSide(SideState& side, int64_t timestamp_us, float amount_usd, uint32_t flags,
                   int64_t newest_us, const FeatureOptions& options) {
  const float x = std::log1p(amount_usd);
  if (side.last_us == kNever) {
    side.ew_mean = x;
    side.ew_var = 0;
  } else {
    const float d = x - side.ew_mean;
    side.ew_mean += kEwWeight * d;
    side.ew_var = (1 - kEwWeight) * (side.ew_var + kEwWeight * d * d);
  }
  side.last_us = std::max(side.last_us, timestamp_us);

  const int64_t ring_horizon = newest_us - kUsPerDay - options.late_tolerance_us;
  const RecentEvent event{timestamp_us, amount_usd, flags};
  if (timestamp_us < ring_horizon) {
    FoldEvent(side, event, false);  // a very late arrival: straight into its day bucket
  } else {
    auto& r = side.recent;
    uint32_t pos = r.size();
    while (pos > 0 && r[pos - 1].timestamp_us > timestamp_us) --pos;
    r.Insert(pos, event);
  }
  uint32_t expired = 0;
  while (expired < side.recent.size() && side.recent[expired].timestamp_us < ring_horizon) {
    ++expired;
  }
  const uint32_t kept = side.recent.size() - expired;
  const uint32_t overflow = kept > options.max_recent_events ? kept - options.max_recent_events : 0;
  const uint32_t fold = expired + overflow;
  if (fold > 0) {
    // Expired events go to their day, overflowing ones (still within 24 h) to their hour.
    for (uint32_t i = 0; i < fold; ++i) FoldEvent(side, side.recent[i], i >= expired);
    uint32_t index = 0;
    side.recent.RetainIf([&](const RecentEvent&) { return index++ >= fold; });
  }
  CompactBuckets(side, newest_us, options);
  return overflow;
}

const PeerEntry* FindPeer(const SideState& side, uint32_t peer) {
  const PeerEntry* it = std::lower_bound(side.peers.begin(), side.peers.end(), peer,
                                         [](const PeerEntry& e, uint32_t h) { return e.hash < h; });
  return it != side.peers.end() && it->hash == peer ? it : nullptr;
}

void TouchPeer(SideState& side, uint32_t peer, int64_t timestamp_us, int64_t newest_us,
               const FeatureOptions& options) {
  const uint32_t now_s = ToUnixSeconds(timestamp_us);
  const int64_t horizon_s =
      (newest_us - kLongestWindowUs - options.late_tolerance_us) / kUsPerSecond;
  side.peers.RetainIf([&](const PeerEntry& e) { return e.last_s >= horizon_s; });
  auto& p = side.peers;
  uint32_t i = 0;
  while (i < p.size() && p[i].hash < peer) ++i;
  if (i < p.size() && p[i].hash == peer) {
    p[i].last_s = std::max(p[i].last_s, now_s);
    p[i].first_s = std::min(p[i].first_s, now_s);
    return;
  }
  if (p.size() >= options.max_peers) {
    uint32_t stalest = 0;
    for (uint32_t j = 1; j < p.size(); ++j) {
      if (p[j].last_s < p[stalest].last_s) stalest = j;
    }
    p.Erase(stalest);
    if (stalest < i) --i;
  }
  p.Insert(i, PeerEntry{peer, now_s, now_s});
}

}  // namespace verdict
