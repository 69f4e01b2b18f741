#include "journal/hash_chain.h"

#include <cstring>

#include "journal/bytes.h"

namespace verdict::journal {

Digest EncodeEntry(uint64_t seq, uint8_t flags, const Digest& prev_hash, std::string_view payload,
                   std::string& out) {
  size_t start = out.size();
  out.reserve(start + kEntryOverheadBytes + payload.size());
  ByteWriter w(out);
  w.Raw(kEntryMagic);
  w.U8(flags);
  w.U64(seq);
  w.Raw(AsBytes(prev_hash));
  w.Str(payload);
  Digest hash = Sha256(std::string_view(out).substr(start));
  w.Raw(AsBytes(hash));
  return hash;
}

Result<EntryView> DecodeEntry(std::string_view stored) {
  auto bad = [](const std::string& why) {
    return InvalidArgument("malformed journal entry: " + why);
  };
  ByteReader r(stored);
  if (r.Raw(4) != kEntryMagic) return bad("bad magic");
  EntryView e;
  e.flags = r.U8();
  e.seq = r.U64();
  e.prev_hash = r.Array<32>();
  uint32_t len = r.U32();
  if (!r.ok()) return bad("truncated header");
  if ((e.flags & ~kEntryFlagEncrypted) != 0) return bad("unknown flags");
  if (r.remaining() != static_cast<size_t>(len) + 32) return bad("length mismatch");
  e.payload = r.Raw(len);
  e.record_hash = r.Array<32>();
  if (!r.ok() || !r.at_end()) return bad("length mismatch");
  if (e.seq == 0) return bad("sequence number 0");
  Digest computed = Sha256(stored.substr(0, stored.size() - 32));
  if (computed != e.record_hash) return bad("record hash does not match its bytes");
  return e;
}

}  // namespace verdict::journal
