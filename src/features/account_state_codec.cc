#include "features/account_state_codec.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace verdict {

namespace {

// Version 2 (features-3) appends the counterparty-risk levels; version 1 still decodes, with
// those levels 0 (a state written before they existed).
constexpr uint8_t kVersion = 2;
constexpr uint8_t kVersionWithoutRisk = 1;
constexpr uint64_t kMaxEntries = 4096;
static_assert(kMaxEntries <= kMaxArrayEntries);

class Writer {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void Fixed(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      U8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    U8(static_cast<uint8_t>(v));
  }
  void Signed(int64_t v) {
    Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void Float(float f) { Fixed(std::bit_cast<uint32_t>(f), 4); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool U8(uint8_t* v) {
    if (pos_ >= in_.size()) return false;
    *v = static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  bool Fixed(uint64_t* v, int bytes) {
    if (in_.size() - pos_ < static_cast<size_t>(bytes)) return false;
    *v = 0;
    for (int i = 0; i < bytes; ++i) {
      *v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    }
    pos_ += bytes;
    return true;
  }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b;
      if (!U8(&b)) return false;
      if (shift == 63 && b > 1) return false;
      if (shift > 0 && b == 0) return false;  // not the shortest form: one encoding per value
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool Signed(int64_t* v) {
    uint64_t u;
    if (!Varint(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool Float(float* f) {
    uint64_t bits;
    if (!Fixed(&bits, 4)) return false;
    *f = std::bit_cast<float>(static_cast<uint32_t>(bits));
    return std::isfinite(*f);
  }
  bool Count(uint64_t* n) { return Varint(n) && *n <= kMaxEntries; }
  bool done() const { return pos_ == in_.size(); }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

void EncodeSide(ConstSideView s, Writer& w) {
  w.Signed(s.scalars().last_us);
  w.Float(s.scalars().ew_mean);
  w.Float(s.scalars().ew_var);
  w.Varint(s.recent().size());
  for (const RecentEvent& e : s.recent()) {
    w.Signed(e.timestamp_us);
    w.Float(e.amount_usd);
    w.Varint(e.flags);
  }
  w.Varint(s.buckets().size());
  for (const WindowBucket& b : s.buckets()) {
    w.Fixed(b.slot, 2);
    w.U8(b.level);
    w.U8(b.near_count);
    w.Fixed(b.count, 2);
    w.Fixed(b.round_count, 2);
    w.Float(b.sum);
    w.Float(b.max);
  }
  w.Varint(s.peers().size());
  for (const PeerEntry& p : s.peers()) {
    w.Fixed(p.hash, 4);
    w.Fixed(p.first_s, 4);
    w.Fixed(p.last_s, 4);
  }
}

Status Corrupt(const char* what) {
  return InvalidArgument(std::string("account state: ") + what, "state");
}

Status DecodeSide(Reader& r, SideView s) {
  uint64_t n;
  SideScalars scalars;
  if (!r.Signed(&scalars.last_us) || !r.Float(&scalars.ew_mean) || !r.Float(&scalars.ew_var)) {
    return Corrupt("truncated side header");
  }
  if (scalars.ew_var < 0) return Corrupt("negative variance");
  s.scalars() = scalars;
  StateArray<RecentEvent> recent = s.recent();
  StateArray<WindowBucket> buckets = s.buckets();
  StateArray<PeerEntry> peers = s.peers();
  if (!r.Count(&n)) return Corrupt("bad recent-event count");
  for (uint64_t i = 0; i < n; ++i) {
    RecentEvent e;
    uint64_t flags;
    if (!r.Signed(&e.timestamp_us) || !r.Float(&e.amount_usd) || !r.Varint(&flags)) {
      return Corrupt("truncated recent event");
    }
    if (flags > (kEventNear | kEventRound) || e.amount_usd < 0) return Corrupt("bad event");
    if (i > 0 && recent[recent.size() - 1].timestamp_us > e.timestamp_us) {
      return Corrupt("recent events out of order");
    }
    e.flags = static_cast<uint32_t>(flags);
    recent.PushBack(e);
  }
  if (!r.Count(&n)) return Corrupt("bad bucket count");
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t slot, count, round;
    WindowBucket b;
    if (!r.Fixed(&slot, 2) || !r.U8(&b.level) || !r.U8(&b.near_count) || !r.Fixed(&count, 2) ||
        !r.Fixed(&round, 2) || !r.Float(&b.sum) || !r.Float(&b.max)) {
      return Corrupt("truncated bucket");
    }
    b.slot = static_cast<uint16_t>(slot);
    b.count = static_cast<uint16_t>(count);
    b.round_count = static_cast<uint16_t>(round);
    if (b.level > kLevelLastHour || b.sum < 0 || b.max < 0) return Corrupt("bad bucket");
    if (i > 0) {
      const WindowBucket& p = buckets[buckets.size() - 1];
      if (p.level > b.level || (p.level == b.level && p.slot >= b.slot)) {
        return Corrupt("buckets out of order");
      }
    }
    buckets.PushBack(b);
  }
  if (!r.Count(&n)) return Corrupt("bad peer count");
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t hash, first, last;
    if (!r.Fixed(&hash, 4) || !r.Fixed(&first, 4) || !r.Fixed(&last, 4)) {
      return Corrupt("truncated peer");
    }
    if (first > last) return Corrupt("peer first after last");
    if (i > 0 && peers[peers.size() - 1].hash >= hash) return Corrupt("peers out of order");
    peers.PushBack(PeerEntry{static_cast<uint32_t>(hash), static_cast<uint32_t>(first),
                             static_cast<uint32_t>(last)});
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeAccountState(const AccountState& state) {
  Writer w;
  w.U8(kVersion);
  w.Signed(state.first_seen_us());
  w.Signed(state.last_seen_us());
  EncodeSide(state.out(), w);
  EncodeSide(state.in(), w);
  w.Varint(state.two_hop_count());
  w.Varint(state.paths().size());
  for (const PathEntry& p : state.paths()) {
    w.Fixed(p.hash, 4);
    w.Fixed(p.start_s, 4);
  }
  const StateHeader& h = state.header();
  w.Float(h.unusual);
  w.Float(h.peer_unusual);
  w.Fixed(h.risk_s, 4);
  return w.Take();
}

Result<AccountState> DecodeAccountState(std::string_view bytes) {
  Reader r(bytes);
  AccountState state;
  uint8_t version;
  if (!r.U8(&version)) return Corrupt("empty");
  if (version != kVersion && version != kVersionWithoutRisk) return Corrupt("unknown version");
  int64_t first_seen_us, last_seen_us;
  if (!r.Signed(&first_seen_us) || !r.Signed(&last_seen_us)) return Corrupt("truncated header");
  if (first_seen_us > last_seen_us) return Corrupt("first seen after last seen");
  state.set_first_seen_us(first_seen_us);
  state.set_last_seen_us(last_seen_us);
  VERDICT_RETURN_IF_ERROR(DecodeSide(r, state.out()));
  VERDICT_RETURN_IF_ERROR(DecodeSide(r, state.in()));
  uint64_t two_hop, n;
  if (!r.Count(&two_hop) || !r.Count(&n) || two_hop > n) return Corrupt("bad path counts");
  StateArray<PathEntry> paths = state.paths();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t hash, start;
    if (!r.Fixed(&hash, 4) || !r.Fixed(&start, 4)) return Corrupt("truncated path");
    if (i > 0 && i != two_hop && paths[paths.size() - 1].hash >= hash) {
      return Corrupt("paths out of order");
    }
    paths.PushBack(PathEntry{static_cast<uint32_t>(hash), static_cast<uint32_t>(start)});
  }
  state.set_two_hop_count(static_cast<uint32_t>(two_hop));
  if (version == kVersion) {
    float unusual, peer_unusual;
    uint64_t risk_s;
    if (!r.Float(&unusual) || !r.Float(&peer_unusual) || !r.Fixed(&risk_s, 4)) {
      return Corrupt("truncated risk levels");
    }
    if (unusual < 0 || peer_unusual < 0) return Corrupt("negative risk level");
    StateHeader& h = state.mutable_header();
    h.unusual = unusual;
    h.peer_unusual = peer_unusual;
    h.risk_s = static_cast<uint32_t>(risk_s);
  }
  if (!r.done()) return Corrupt("trailing bytes");
  return state;
}

}  // namespace verdict
