// ReadGroupBatch: reads a serialized RocksDB WriteBatch (WriteBatch::Data()) of the kinds the
// journal's group commits write: puts and deletes, each in a column family. RocksDB's own
// reader, WriteBatch::Iterate, aborts the process on some malformed batches (Debian's RocksDB
// 7.8 keeps its assertions; the commit log fuzz target found one), and DB::Write refuses such a
// batch with an error about transactions; so the bytes of a commit log frame, which only its
// 8-byte check vouches for, are read here first, on replay and in verify. Stateless;
// thread-safe. Format: a 12-byte header (sequence, little-endian u64; count, u32), then per
// operation a tag byte, the column family (varint32) for tags 4 and 5, the key and, for puts,
// the value (each a varint32 length and its bytes); tags 0 and 1 are the same in the default
// column family.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::journal {

struct GroupBatchOp {
  bool is_delete = false;
  uint32_t column_family = 0;
  std::string_view key;
  std::string_view value;  // empty for a delete
};

// The operations in order, viewing `rep`; an error naming the offset of the first byte that is
// not part of such a batch, or the count that does not match.
Result<std::vector<GroupBatchOp>> ReadGroupBatch(std::string_view rep);

}  // namespace verdict::journal
