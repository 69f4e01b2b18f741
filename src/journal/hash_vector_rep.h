// HashVectorRepFactory: a RocksDB memtable for the journal's randomly keyed index families
// (by_transaction, by_account). Inserts append to a vector and link the entry into a hash table
// of key prefixes (the column family's prefix extractor, else the whole user key), so an insert
// costs O(1) with no ordered structure to maintain; point lookups and prefix seeks sort only the
// entries of one prefix; a whole-table iteration (the flush) sorts the vector once.
//
// RocksDB's own hash memtables (HashSkipList, HashLinkList) insert as cheaply but build a whole
// skiplist, one random insert per entry, every time they are iterated in total order: at each
// flush that cost a quarter of the journal's CPU (docs/PERFORMANCE.md, journal).
//
// Thread safety: RocksDB's memtable contract: one writer at a time (the journal sets
// allow_concurrent_memtable_write = false) concurrent with any number of readers; a shared
// mutex makes readers safe against the vector and table growing under them.
#pragma once

#include <rocksdb/memtablerep.h>

namespace verdict::journal {

class HashVectorRepFactory : public rocksdb::MemTableRepFactory {
 public:
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* prefix_extractor,
                                          rocksdb::Logger* logger) override;
  const char* Name() const override { return "verdict.HashVectorRepFactory"; }
};

}  // namespace verdict::journal
