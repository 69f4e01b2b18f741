// ReadGroupBatch: reads a serialized RocksDB WriteBatch (WriteBatch::Data()) of the kinds the
// journal's group commits write: puts and deletes, each in a column family; CheckGroupBatch:
// whether it is the batch of the group a commit log frame names. The bytes of a frame are vouched
// for by its 8-byte check only, and RocksDB must not be the first to read them:
// WriteBatch::Iterate aborts the process on some malformed batches (Debian's RocksDB 7.8 keeps
// its assertions; the commit log fuzz target found one), and DB::Write logs a batch to its WAL
// before refusing it at the memtable (a transaction tag, a wrong count, an unknown column
// family), which stops further writes and meets the batch again at the next open. Stateless;
// thread-safe. Format: a 12-byte header (sequence, little-endian u64; count, u32), then per
// operation a tag byte, the column family (varint32) for tags 4 and 5, the key and, for puts,
// the value (each a varint32 length and its bytes); tags 0 and 1 are the same in the default
// column family. A varint32 whose fifth byte holds more than 4 bits is refused (RocksDB drops
// those bits).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "journal/store.h"

namespace verdict::journal {

struct GroupBatchOp {
  bool is_delete = false;
  uint32_t column_family = 0;
  std::string_view key;
  std::string_view value;  // empty for a delete
};

// The operations in order, viewing `rep`; an error naming the offset of the operation that is
// not a put or a delete, or not whole, or the count that does not match.
Result<std::vector<GroupBatchOp>> ReadGroupBatch(std::string_view rep);

// Whether `payload` is the batch of a group commit of records first_seq..last_seq: puts to the
// journal's column families (not the default one), deletes of account state only (a delete of a
// record, checkpoint, index or the head would have a replay remove what was verified), and
// exactly the group's records, in order. Checked on replay and in verify. The operations on
// success, viewing `payload`.
Result<std::vector<GroupBatchOp>> CheckGroupBatch(const JournalStore& store,
                                                  std::string_view payload, uint64_t first_seq,
                                                  uint64_t last_seq);

}  // namespace verdict::journal
