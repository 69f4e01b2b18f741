#include "journal/head.h"

#include "journal/bytes.h"
#include "journal/store.h"

namespace verdict::journal {

std::string EncodeHead(const JournalHead& head) {
  std::string out;
  ByteWriter w(out);
  w.Raw(head.state_digest ? "VJH2" : "VJH1");
  w.U64(head.last_seq);
  w.Raw(AsBytes(head.last_hash));
  if (head.state_digest) w.Raw(head.state_digest->Encode());
  w.Raw(head.merkle.Serialize());
  return out;
}

Result<JournalHead> DecodeHead(std::string_view bytes) {
  ByteReader r(bytes);
  JournalHead head;
  const std::string_view magic = r.Raw(4);
  const bool sealed = magic == "VJH2";
  head.last_seq = r.U64();
  head.last_hash = r.Array<32>();
  if (sealed) head.state_digest = StateDigest::Decode(r.Raw(StateDigest::kBytes));
  if (!r.ok() || (magic != "VJH1" && !sealed) || (sealed && !head.state_digest)) {
    return InvalidArgument("malformed journal head");
  }
  VERDICT_ASSIGN_OR_RETURN(head.merkle, CompactMerkle::Deserialize(r.Raw(r.remaining())));
  if (head.merkle.size() != head.last_seq) {
    return InvalidArgument("journal head: Merkle size differs from last sequence number");
  }
  return head;
}

Result<std::optional<JournalHead>> ReadStoredHead(const JournalStore& store) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> bytes, store.Get(Cf::kMeta, kMetaHeadKey));
  if (!bytes) return std::optional<JournalHead>();
  VERDICT_ASSIGN_OR_RETURN(JournalHead head, DecodeHead(*bytes));
  return std::optional<JournalHead>(std::move(head));
}

}  // namespace verdict::journal
