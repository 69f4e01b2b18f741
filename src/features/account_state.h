// AccountState: what verdict remembers of one account (per side: recent events, buckets, peers,
// EW stats; cycle paths; counterparty risk) as an 8-byte handle to ONE heap block (80-byte header,
// seven arrays). Value type (deep copies); not thread-safe (the stripe lock guards it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

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

// The arrays of an account in block order: the 16-byte element types first, so that every
// array starts aligned for its type.
enum ArrayId : uint8_t {
  kOutRecent,
  kInRecent,
  kOutBuckets,
  kInBuckets,
  kPaths,
  kOutPeers,
  kInPeers
};
inline constexpr int kArrayCount = 7;
inline constexpr size_t kElementSize[kArrayCount] = {16, 16, 16, 16, 8, 12, 12};
// Entries per array are bounded by FeatureOptions (max_recent_events <= 4096, max_peers and
// max_paths <= 1024, buckets < 100), well within the 16-bit counts.
inline constexpr uint32_t kMaxArrayEntries = 0xffff;

struct SideScalars {
  int64_t last_us = kNever;  // newest transfer on this side
  float ew_mean = 0;         // of ln(1 + amount_usd), weight kEwWeight per event
  float ew_var = 0;
};

// The block's header; the arrays' elements follow it.
struct StateHeader {
  SideScalars side[2];  // [0] sent (out), [1] received (in)
  int64_t first_seen_us = kNever;
  int64_t last_seen_us = kNever;  // newest event on either side
  uint16_t count[kArrayCount] = {};
  // paths[0, two_hop_count): 2-hop predecessors (X→Y→this); the rest: 3-hop. Each part by hash.
  uint16_t two_hop_count = 0;
  uint32_t capacity = 0;  // bytes for elements after the header
  // Counterparty risk (counterparty_risk.h), as of risk_s (Unix seconds): the account's fading
  // count of unusual transfers, and the highest such count of a counterparty.
  float unusual = 0;
  float peer_unusual = 0;
  uint32_t risk_s = 0;
  // Not part of the state: the journal's seal of the state as last stored (journal/state_seal.h),
  // which the next stored state replaces in the journal's digest. All zero: none stored.
  std::array<uint8_t, 16> stored_seal{};
};
static_assert(sizeof(StateHeader) == 96);
static_assert(sizeof(RecentEvent) == kElementSize[kOutRecent]);
static_assert(sizeof(WindowBucket) == kElementSize[kOutBuckets]);
static_assert(sizeof(PathEntry) == kElementSize[kPaths]);
static_assert(sizeof(PeerEntry) == kElementSize[kOutPeers]);

class AccountState;

// A read-only view of one array of a state; valid until the state changes.
template <typename T>
class ConstStateArray {
 public:
  ConstStateArray(const T* data, uint32_t size) : data_(data), size_(size) {}
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](uint32_t i) const { return data_[i]; }

 private:
  const T* data_;
  uint32_t size_;
};

// A mutable view of one array of a state. Insert and the removals may move the whole block:
// references and pointers into any array of the state are invalid after them.
template <typename T>
class StateArray {
 public:
  StateArray(AccountState* owner, ArrayId id) : owner_(owner), id_(id) {}
  uint32_t size() const;
  bool empty() const { return size() == 0; }
  T* begin() const;
  T* end() const { return begin() + size(); }
  T& operator[](uint32_t i) const { return begin()[i]; }
  operator ConstStateArray<T>() const { return ConstStateArray<T>(begin(), size()); }

  // Inserts `value` before position `index` (index <= size()).
  void Insert(uint32_t index, const T& value);
  void PushBack(const T& value) { Insert(size(), value); }
  void Erase(uint32_t index);
  // Keeps only the elements for which keep(element) is true, in order.
  template <typename Pred>
  void RetainIf(Pred keep);
  void clear();

 private:
  AccountState* owner_;
  ArrayId id_;
};

class ConstSideView;

// One side (sent or received) of a state, mutable; a view: holds no data.
class SideView {
 public:
  SideView(AccountState* owner, int side) : owner_(owner), side_(side) {}
  StateArray<RecentEvent> recent() const;    // by timestamp; equal timestamps in arrival order
  StateArray<WindowBucket> buckets() const;  // by (level, slot)
  StateArray<PeerEntry> peers() const;       // by hash
  SideScalars& scalars() const;              // invalid after an array changes
  operator ConstSideView() const;

 private:
  AccountState* owner_;
  int side_;
};

// One side of a state, read-only; valid until the state changes.
class ConstSideView {
 public:
  ConstSideView(const AccountState* owner, int side) : owner_(owner), side_(side) {}
  ConstStateArray<RecentEvent> recent() const;
  ConstStateArray<WindowBucket> buckets() const;
  ConstStateArray<PeerEntry> peers() const;
  const SideScalars& scalars() const;

 private:
  const AccountState* owner_;
  int side_;
};

class AccountState {
 public:
  AccountState() = default;  // no block until the first change
  AccountState(const AccountState& other) { CopyFrom(other); }
  AccountState(AccountState&& other) noexcept : block_(other.block_) { other.block_ = nullptr; }
  AccountState& operator=(const AccountState& other);
  AccountState& operator=(AccountState&& other) noexcept;
  ~AccountState();

  SideView out() { return SideView(this, 0); }  // transfers this account sent
  SideView in() { return SideView(this, 1); }   // transfers this account received
  ConstSideView out() const { return ConstSideView(this, 0); }
  ConstSideView in() const { return ConstSideView(this, 1); }
  StateArray<PathEntry> paths() { return StateArray<PathEntry>(this, kPaths); }
  ConstStateArray<PathEntry> paths() const { return Array<PathEntry>(kPaths); }

  uint32_t two_hop_count() const { return header().two_hop_count; }
  void set_two_hop_count(uint32_t n) { mutable_header().two_hop_count = static_cast<uint16_t>(n); }
  int64_t first_seen_us() const { return header().first_seen_us; }
  void set_first_seen_us(int64_t t) { mutable_header().first_seen_us = t; }
  int64_t last_seen_us() const { return header().last_seen_us; }
  void set_last_seen_us(int64_t t) { mutable_header().last_seen_us = t; }
  const std::array<uint8_t, 16>& stored_seal() const { return header().stored_seal; }
  void set_stored_seal(const std::array<uint8_t, 16>& seal) { mutable_header().stored_seal = seal; }

  // Bytes of the block (header and element capacity), for memory accounting; 0 before the
  // first change.
  size_t HeapBytes() const { return block_ ? sizeof(StateHeader) + block_->capacity : 0; }

  // For the views.
  const StateHeader& header() const { return block_ ? *block_ : kEmpty; }
  StateHeader& mutable_header() {
    if (block_ == nullptr) Reallocate(0);
    return *block_;
  }
  template <typename T>
  ConstStateArray<T> Array(ArrayId id) const {
    if (block_ == nullptr) return ConstStateArray<T>(nullptr, 0);
    return ConstStateArray<T>(reinterpret_cast<const T*>(Elements() + OffsetOf(id)),
                              block_->count[id]);
  }
  template <typename T>
  T* MutableData(ArrayId id) {
    mutable_header();
    return reinterpret_cast<T*>(reinterpret_cast<char*>(block_ + 1) + OffsetOf(id));
  }
  // Opens a gap of one element at `index` of array `id`; returns it.
  void* InsertGap(ArrayId id, uint32_t index);
  // Array `id` keeps its first `kept` elements: the rest are dropped and later arrays move down.
  void Truncate(ArrayId id, uint32_t kept);

 private:
  static constexpr StateHeader kEmpty{};

  const char* Elements() const { return reinterpret_cast<const char*>(block_ + 1); }
  size_t OffsetOf(int id) const {
    size_t offset = 0;
    for (int i = 0; i < id; ++i) offset += block_->count[i] * kElementSize[i];
    return offset;
  }
  size_t UsedBytes() const { return block_ ? OffsetOf(kArrayCount) : 0; }
  // Resizes the block to hold at least `need` element bytes (with some slack).
  void Reallocate(size_t need);
  void CopyFrom(const AccountState& other);

  StateHeader* block_ = nullptr;
};

template <typename T>
uint32_t StateArray<T>::size() const {
  return owner_->header().count[id_];
}
template <typename T>
T* StateArray<T>::begin() const {
  return owner_->MutableData<T>(id_);
}
template <typename T>
void StateArray<T>::Insert(uint32_t index, const T& value) {
  const T copy = value;  // `value` may lie in the block, which may move
  std::memcpy(owner_->InsertGap(id_, index), &copy, sizeof(T));
}
template <typename T>
void StateArray<T>::Erase(uint32_t index) {
  T* data = begin();
  const uint32_t n = size();
  std::memmove(data + index, data + index + 1, (n - index - 1) * sizeof(T));
  owner_->Truncate(id_, n - 1);
}
template <typename T>
template <typename Pred>
void StateArray<T>::RetainIf(Pred keep) {
  T* data = begin();
  const uint32_t n = size();
  uint32_t out = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (keep(data[i])) data[out++] = data[i];
  }
  if (out != n) owner_->Truncate(id_, out);
}
template <typename T>
void StateArray<T>::clear() {
  if (size() > 0) owner_->Truncate(id_, 0);
}

inline StateArray<RecentEvent> SideView::recent() const {
  return StateArray<RecentEvent>(owner_, side_ == 0 ? kOutRecent : kInRecent);
}
inline StateArray<WindowBucket> SideView::buckets() const {
  return StateArray<WindowBucket>(owner_, side_ == 0 ? kOutBuckets : kInBuckets);
}
inline StateArray<PeerEntry> SideView::peers() const {
  return StateArray<PeerEntry>(owner_, side_ == 0 ? kOutPeers : kInPeers);
}
inline SideScalars& SideView::scalars() const { return owner_->mutable_header().side[side_]; }
inline SideView::operator ConstSideView() const { return ConstSideView(owner_, side_); }

inline ConstStateArray<RecentEvent> ConstSideView::recent() const {
  return owner_->Array<RecentEvent>(side_ == 0 ? kOutRecent : kInRecent);
}
inline ConstStateArray<WindowBucket> ConstSideView::buckets() const {
  return owner_->Array<WindowBucket>(side_ == 0 ? kOutBuckets : kInBuckets);
}
inline ConstStateArray<PeerEntry> ConstSideView::peers() const {
  return owner_->Array<PeerEntry>(side_ == 0 ? kOutPeers : kInPeers);
}
inline const SideScalars& ConstSideView::scalars() const { return owner_->header().side[side_]; }

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
uint32_t AddToSide(SideView side, int64_t timestamp_us, float amount_usd, uint32_t flags,
                   int64_t newest_us, const FeatureOptions& options);
// Marks `peer` as a counterparty at `timestamp_us`, evicting the stalest one when full.
void TouchPeer(SideView side, uint32_t peer, int64_t timestamp_us, int64_t newest_us,
               const FeatureOptions& options);
const PeerEntry* FindPeer(ConstSideView side, uint32_t peer);

}  // namespace verdict
