// AccountState: what verdict remembers of one account between transactions: per side (sent,
// received) exact recent events, day/week buckets, a bounded counterparty set and running
// amount statistics, plus the 2-hop/3-hop predecessor sets used for cycle detection. Owned by
// the AccountStore; not thread-safe (the account's stripe lock guards it).
#pragma once

#include <cstdint>
#include <limits>

#include "features/compact_array.h"
#include "features/feature_options.h"

namespace verdict {

inline constexpr int64_t kUsPerSecond = 1'000'000;
inline constexpr int64_t kUsPerHour = 3600 * kUsPerSecond;
inline constexpr int64_t kUsPerDay = 24 * kUsPerHour;
inline constexpr int64_t kNever = std::numeric_limits<int64_t>::min();

// One transfer kept exactly (it lies within 24 h + tolerance of the account's newest event).
struct RecentEvent {
  int64_t timestamp_us;
  float amount_usd;
  uint32_t flags;  // kEventNear | kEventRound
};
inline constexpr uint32_t kEventNear = 1;
inline constexpr uint32_t kEventRound = 2;
inline constexpr uint8_t kLevelDay = 0;
inline constexpr uint8_t kLevelWeek = 1;
inline constexpr uint8_t kLevelFirstHour = 2;  // levels 2..25
inline constexpr uint8_t kLevelLastHour = kLevelFirstHour + 23;

// Aggregate of transfers: level 0 = one UTC day (slot = day index since 1970), level 1 = one
// 7-day block (slot = day index / 7), level 2 + h = hour h of day `slot` (recent transfers of a
// side that exceeded max_recent_events). Counts saturate.
struct WindowBucket {
  uint16_t slot;
  uint8_t level;
  uint8_t near_count;
  uint16_t count;
  uint16_t round_count;
  float sum;
  float max;
};

// A counterparty: a 32-bit hash of its account key, first and last transfer (Unix seconds).
struct PeerEntry {
  uint32_t hash;
  uint32_t first_s;
  uint32_t last_s;
};

// A predecessor reaching this account by a time-respecting path; start_s is the path's first
// hop (Unix seconds).
struct PathEntry {
  uint32_t hash;
  uint32_t start_s;
};

struct SideState {
  CompactArray<RecentEvent> recent;    // by timestamp; equal timestamps in arrival order
  CompactArray<WindowBucket> buckets;  // by (level, slot)
  CompactArray<PeerEntry> peers;       // by hash
  float ew_mean = 0;                   // of ln(1 + amount_usd), weight kEwWeight per event
  float ew_var = 0;
  int64_t last_us = kNever;  // newest transfer on this side
};

struct AccountState {
  SideState out;  // transfers this account sent
  SideState in;   // transfers this account received
  // paths[0, two_hop_count): 2-hop predecessors (X→Y→this); the rest: 3-hop. Each part by hash.
  CompactArray<PathEntry> paths;
  uint32_t two_hop_count = 0;
  int64_t first_seen_us = kNever;
  int64_t last_seen_us = kNever;  // newest event on either side

  // Heap bytes held by the arrays (capacity, not size), for memory accounting.
  size_t HeapBytes() const;
};

inline constexpr float kEwWeight = 0.1f;

// 32-bit key of an account as the state's sets store it.
uint32_t AccountHash32(std::string_view account);
uint32_t ToUnixSeconds(int64_t timestamp_us);
uint16_t DaySlot(int64_t timestamp_us);
int64_t BucketStartUs(const WindowBucket& b);
int64_t BucketWidthUs(const WindowBucket& b);
// Day buckets older than this many days (before the day of the newest event) are merged into
// their 7-day block.
inline constexpr int64_t kDayBucketsKeptDays = 8;
// The start a window query as of `as_of_us` uses for `b`: a day bucket that compaction would
// already have merged counts from its 7-day block's start, so results do not depend on when
// compaction ran.
int64_t BucketEffectiveStartUs(const WindowBucket& b, int64_t as_of_us);

// Records one transfer on a side. `newest_us` is the account's newest event time after this
// one. Returns the number of recent events folded early because the side exceeded
// max_recent_events (0 normally).
uint32_t AddToSide(SideState& side, int64_t timestamp_us, float amount_usd, uint32_t flags,
                   int64_t newest_us, const FeatureOptions& options);
// Marks `peer` as a counterparty at `timestamp_us`, evicting the stalest one when full.
void TouchPeer(SideState& side, uint32_t peer, int64_t timestamp_us, int64_t newest_us,
               const FeatureOptions& options);
const PeerEntry* FindPeer(const SideState& side, uint32_t peer);

}  // namespace verdict
