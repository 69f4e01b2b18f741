#include "features/account_state.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>

#include "common/hash.h"

namespace verdict {

namespace {

constexpr int64_t kLongestWindowUs = 30 * kUsPerDay;

uint16_t Sat16(uint32_t v) { return static_cast<uint16_t>(std::min<uint32_t>(v, 0xffff)); }
uint8_t Sat8(uint32_t v) { return static_cast<uint8_t>(std::min<uint32_t>(v, 0xff)); }

void MergeIntoBucket(SideView side, uint8_t level, uint16_t slot, uint32_t count, float sum,
                     float max, uint32_t near, uint32_t round) {
  StateArray<WindowBucket> b = side.buckets();
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

// `e` by value: it may come from the same block, which the merge can move.
void FoldEvent(SideView side, const RecentEvent e, bool into_hour) {
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
void CompactBuckets(SideView side, int64_t newest_us, const FeatureOptions& options) {
  const int64_t newest_day = DaySlot(newest_us);
  const int64_t ring_horizon = newest_us - kUsPerDay - options.late_tolerance_us;
  bool moved = true;
  while (moved) {
    moved = false;
    StateArray<WindowBucket> buckets = side.buckets();
    for (uint32_t i = 0; i < buckets.size(); ++i) {
      const WindowBucket b = buckets[i];
      if (b.level == kLevelDay && b.slot < newest_day - kDayBucketsKeptDays) {
        buckets.Erase(i);
        MergeIntoBucket(side, kLevelWeek, static_cast<uint16_t>(b.slot / 7), b.count, b.sum, b.max,
                        b.near_count, b.round_count);
        moved = true;
        break;
      }
      if (b.level >= kLevelFirstHour && BucketStartUs(b) + kUsPerHour <= ring_horizon) {
        buckets.Erase(i);
        MergeIntoBucket(side, kLevelDay, b.slot, b.count, b.sum, b.max, b.near_count,
                        b.round_count);
        moved = true;
        break;
      }
    }
  }
  const int64_t horizon = newest_us - kLongestWindowUs - options.late_tolerance_us;
  side.buckets().RetainIf(
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

AccountState& AccountState::operator=(const AccountState& other) {
  if (this != &other) {
    std::free(block_);
    block_ = nullptr;
    CopyFrom(other);
  }
  return *this;
}

AccountState& AccountState::operator=(AccountState&& other) noexcept {
  if (this != &other) {
    std::free(block_);
    block_ = other.block_;
    other.block_ = nullptr;
  }
  return *this;
}

AccountState::~AccountState() { std::free(block_); }

void AccountState::CopyFrom(const AccountState& other) {
  if (other.block_ == nullptr) return;
  const size_t used = other.UsedBytes();
  Reallocate(used);
  const uint32_t capacity = block_->capacity;
  std::memcpy(block_, other.block_, sizeof(StateHeader) + used);
  block_->capacity = capacity;
}

void AccountState::Reallocate(size_t need) {
  // Some slack, so that an array growing and shrinking by an element does not call realloc
  // each time; the total is rounded to a size glibc's malloc hands out without waste (16k + 8).
  size_t total = sizeof(StateHeader) + need + need / 8 + 16;
  total = ((total + 8 + 15) & ~size_t{15}) - 8;
  void* p = std::realloc(block_, total);
  if (p == nullptr) throw std::bad_alloc();
  const bool fresh = block_ == nullptr;
  block_ = static_cast<StateHeader*>(p);
  if (fresh) new (block_) StateHeader();
  block_->capacity = static_cast<uint32_t>(total - sizeof(StateHeader));
}

void* AccountState::InsertGap(ArrayId id, uint32_t index) {
  const size_t size = kElementSize[id];
  mutable_header();
  const size_t used = UsedBytes();
  if (used + size > block_->capacity) Reallocate(used + size);
  char* elements = reinterpret_cast<char*>(block_ + 1);
  const size_t at = OffsetOf(id) + index * size;
  std::memmove(elements + at + size, elements + at, used - at);
  ++block_->count[id];
  return elements + at;
}

void AccountState::Truncate(ArrayId id, uint32_t kept) {
  const size_t size = kElementSize[id];
  const size_t used = UsedBytes();
  char* elements = reinterpret_cast<char*>(block_ + 1);
  const size_t end = OffsetOf(id + 1);  // old end of array `id`
  const size_t new_end = OffsetOf(id) + kept * size;
  std::memmove(elements + new_end, elements + end, used - end);
  block_->count[id] = static_cast<uint16_t>(kept);
  const size_t now_used = used - (end - new_end);
  // Give back what a burst left behind (with hysteresis against Reallocate's slack).
  if (block_->capacity > now_used + now_used / 4 + 96) Reallocate(now_used);
}

uint32_t AddToSide(SideView side, int64_t timestamp_us, float amount_usd, uint32_t flags,
                   int64_t newest_us, const FeatureOptions& options) {
  const float x = std::log1p(amount_usd);
  SideScalars& scalars = side.scalars();  // used before any array changes
  if (scalars.last_us == kNever) {
    scalars.ew_mean = x;
    scalars.ew_var = 0;
  } else {
    const float d = x - scalars.ew_mean;
    scalars.ew_mean += kEwWeight * d;
    scalars.ew_var = (1 - kEwWeight) * (scalars.ew_var + kEwWeight * d * d);
  }
  scalars.last_us = std::max(scalars.last_us, timestamp_us);

  const int64_t ring_horizon = newest_us - kUsPerDay - options.late_tolerance_us;
  const RecentEvent event{timestamp_us, amount_usd, flags};
  if (timestamp_us < ring_horizon) {
    FoldEvent(side, event, false);  // a very late arrival: straight into its day bucket
  } else {
    StateArray<RecentEvent> r = side.recent();
    uint32_t pos = r.size();
    while (pos > 0 && r[pos - 1].timestamp_us > timestamp_us) --pos;
    r.Insert(pos, event);
  }
  StateArray<RecentEvent> recent = side.recent();
  uint32_t expired = 0;
  while (expired < recent.size() && recent[expired].timestamp_us < ring_horizon) ++expired;
  const uint32_t kept = recent.size() - expired;
  const uint32_t overflow = kept > options.max_recent_events ? kept - options.max_recent_events : 0;
  const uint32_t fold = expired + overflow;
  if (fold > 0) {
    // Expired events go to their day, overflowing ones (still within 24 h) to their hour.
    for (uint32_t i = 0; i < fold; ++i) FoldEvent(side, recent[i], i >= expired);
    uint32_t index = 0;
    recent.RetainIf([&](const RecentEvent&) { return index++ >= fold; });
  }
  CompactBuckets(side, newest_us, options);
  return overflow;
}

const PeerEntry* FindPeer(ConstSideView side, uint32_t peer) {
  const ConstStateArray<PeerEntry> peers = side.peers();
  const PeerEntry* it = std::lower_bound(peers.begin(), peers.end(), peer,
                                         [](const PeerEntry& e, uint32_t h) { return e.hash < h; });
  return it != peers.end() && it->hash == peer ? it : nullptr;
}

void TouchPeer(SideView side, uint32_t peer, int64_t timestamp_us, int64_t newest_us,
               const FeatureOptions& options) {
  const uint32_t now_s = ToUnixSeconds(timestamp_us);
  const int64_t horizon_s =
      (newest_us - kLongestWindowUs - options.late_tolerance_us) / kUsPerSecond;
  StateArray<PeerEntry> p = side.peers();
  p.RetainIf([&](const PeerEntry& e) { return e.last_s >= horizon_s; });
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
