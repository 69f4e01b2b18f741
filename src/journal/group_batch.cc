#include "journal/group_batch.h"

#include <string>

namespace verdict::journal {
namespace {

// RocksDB's record tags (db/dbformat.h) that a group commit writes.
constexpr uint8_t kTagDelete = 0x0;
constexpr uint8_t kTagPut = 0x1;
constexpr uint8_t kTagColumnFamilyDelete = 0x4;
constexpr uint8_t kTagColumnFamilyPut = 0x5;
constexpr size_t kHeaderBytes = 12;

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  size_t pos() const { return pos_; }
  bool done() const { return pos_ == bytes_.size(); }

  bool Byte(uint8_t& out) {
    if (pos_ >= bytes_.size()) return false;
    out = static_cast<uint8_t>(bytes_[pos_++]);
    return true;
  }
  bool Varint32(uint32_t& out) {
    out = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      uint8_t b = 0;
      if (!Byte(b)) return false;
      if (shift == 28 && b > 0x0f) return false;  // more than 32 bits
      out |= static_cast<uint32_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool Slice(std::string_view& out) {
    uint32_t length = 0;
    if (!Varint32(length) || length > bytes_.size() - pos_) return false;
    out = bytes_.substr(pos_, length);
    pos_ += length;
    return true;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

Status Malformed(size_t offset, const std::string& why) {
  return InvalidArgument("at byte " + std::to_string(offset) + ": " + why);
}

}  // namespace

Result<std::vector<GroupBatchOp>> ReadGroupBatch(std::string_view rep) {
  if (rep.size() < kHeaderBytes) return Malformed(0, "shorter than the 12-byte header");
  uint32_t count = 0;
  for (int i = 3; i >= 0; --i) count = (count << 8) | static_cast<uint8_t>(rep[8 + i]);
  Reader in(rep.substr(kHeaderBytes));
  std::vector<GroupBatchOp> ops;
  while (!in.done()) {
    const size_t at = kHeaderBytes + in.pos();
    if (ops.size() == count) return Malformed(at, "more operations than its count");
    uint8_t tag = 0;
    in.Byte(tag);  // cannot fail: !in.done()
    GroupBatchOp op;
    if (tag == kTagColumnFamilyPut || tag == kTagColumnFamilyDelete) {
      if (!in.Varint32(op.column_family))
        return Malformed(at, "a truncated or over-long column family");
    } else if (tag != kTagPut && tag != kTagDelete) {
      return Malformed(at,
                       "an operation of kind " + std::to_string(tag) + ", not a put or a delete");
    }
    op.is_delete = tag == kTagDelete || tag == kTagColumnFamilyDelete;
    if (!in.Slice(op.key)) return Malformed(at, "a truncated or over-long key");
    if (!op.is_delete && !in.Slice(op.value))
      return Malformed(at, "a truncated or over-long value");
    ops.push_back(op);
  }
  if (ops.size() != count) {
    return Malformed(rep.size(), "its count says " + std::to_string(count) +
                                     " operations but it holds " + std::to_string(ops.size()));
  }
  return ops;
}

Result<std::vector<GroupBatchOp>> CheckGroupBatch(const JournalStore& store,
                                                  std::string_view payload, uint64_t first_seq,
                                                  uint64_t last_seq) {
  VERDICT_ASSIGN_OR_RETURN(std::vector<GroupBatchOp> ops, ReadGroupBatch(payload));
  const uint32_t state = store.handle(Cf::kState)->GetID();
  const uint32_t records = store.handle(Cf::kRecords)->GetID();
  uint64_t next = first_seq;
  for (const GroupBatchOp& op : ops) {
    bool known = false;
    for (int c = static_cast<int>(Cf::kState); c < static_cast<int>(Cf::kCount) && !known; ++c) {
      known = op.column_family == store.handle(static_cast<Cf>(c))->GetID();
    }
    if (!known) {
      return InvalidArgument("a write to column family " + std::to_string(op.column_family) +
                             ", which is not one of the journal's");
    }
    if (op.is_delete && op.column_family != state) {
      return InvalidArgument("a delete outside account state");
    }
    if (op.column_family == records) {
      if (next > last_seq || ParseSeqKey(op.key) != next) {
        return InvalidArgument("a record other than the next of its group (" +
                               std::to_string(next) + ")");
      }
      ++next;
    }
  }
  if (next != last_seq + 1) {
    return InvalidArgument("records only to " + std::to_string(next - 1) + " of its group " +
                           std::to_string(first_seq) + ".." + std::to_string(last_seq));
  }
  return ops;
}

}  // namespace verdict::journal
