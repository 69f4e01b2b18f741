// HashVectorRepFactory: a RocksDB memtable for the journal's families written on every decision
// (records, by_decision, by_transaction, by_account, and state with Lookup::kScan). Inserts append
// to a vector and link the entry into a hash table of key prefixes (the column family's prefix
// extractor, else the whole user key), so an insert costs O(1) with no ordered structure to
// maintain; point lookups and prefix seeks sort only the entries of one prefix; a whole-table
// iteration (the flush) sorts the vector once.
//
// RocksDB's own hash memtables (HashSkipList, HashLinkList) insert as cheaply but build a whole
// skiplist, one random insert per entry, every time they are iterated in total order: at each
// flush that cost a quarter of the journal's CPU (docs/PERFORMANCE.md, journal).
//
// Thread safety: RocksDB's memtable contract: one writer at a time (the journal sets
// allow_concurrent_memtable_write = false) concurrent with any number of readers; a shared
// mutex makes readers safe against the vector and table growing under them.
#pragma once

#include <rocksdb/comparator.h>
#include <rocksdb/memtablerep.h>

namespace verdict::journal {

class HashVectorRepFactory : public rocksdb::MemTableRepFactory {
 public:
  enum class Lookup {
    kHashed,  // point reads and prefix seeks find their entries through the hash table
    kScan,    // no hash table (an insert is one append): for families that are only scanned
  };
  // `user_comparator`: the column family's comparator (RocksDB's bytewise one unless set); the
  // factory cannot learn it from RocksDB, and with the bytewise comparator it sorts faster.
  explicit HashVectorRepFactory(
      const rocksdb::Comparator* user_comparator = rocksdb::BytewiseComparator(),
      Lookup lookup = Lookup::kHashed)
      : user_comparator_(user_comparator), lookup_(lookup) {}
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* prefix_extractor,
                                          rocksdb::Logger* logger) override;
  const char* Name() const override { return "verdict.HashVectorRepFactory"; }

 private:
  const rocksdb::Comparator* user_comparator_;
  Lookup lookup_;
};

}  // namespace verdict::journal
