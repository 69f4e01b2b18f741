#include "journal/head.h"

#include "journal/bytes.h"

namespace verdict::journal {

std::string EncodeHead(const JournalHead& head) {
  std::string out;
  ByteWriter w(out);
  w.Raw("VJH1");
  w.U64(head.last_seq);
  w.Raw(AsBytes(head.last_hash));
  w.Raw(head.merkle.Serialize());
  return out;
}

Result<JournalHead> DecodeHead(std::string_view bytes) {
  ByteReader r(bytes);
  JournalHead head;
  bool magic_ok = r.Raw(4) == "VJH1";
  head.last_seq = r.U64();
  head.last_hash = r.Array<32>();
  if (!r.ok() || !magic_ok) return InvalidArgument("malformed journal head");
  VERDICT_ASSIGN_OR_RETURN(head.merkle, CompactMerkle::Deserialize(r.Raw(r.remaining())));
  if (head.merkle.size() != head.last_seq) {
    return InvalidArgument("journal head: Merkle size differs from last sequence number");
  }
  return head;
}

}  // namespace verdict::journal
