// JournalStore's checksum pass over its table files while the store keeps working: files that a
// compaction replaces during the pass are not damage.
#include "journal/store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <atomic>
#include <string>
#include <thread>

#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::TempDir;

std::unique_ptr<JournalStore> OpenStore(const TempDir& dir) {
  StoreOptions so;
  so.data_dir = dir.Sub("data");
  Result<std::unique_ptr<JournalStore>> store = JournalStore::Open(so);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

// Leaves `files` table files in the records family, each one flush of `keys_per_file` keys.
void WriteTables(JournalStore& store, int files, int keys_per_file) {
  uint64_t seq = 1;
  for (int f = 0; f < files; ++f) {
    rocksdb::WriteBatch batch;
    for (int k = 0; k < keys_per_file; ++k, ++seq) {
      batch.Put(store.handle(Cf::kRecords), SeqKey(seq), std::string(200, 'x'));
    }
    ASSERT_TRUE(store.Write(batch, /*sync=*/false).ok());
    ASSERT_TRUE(store.db()->Flush(rocksdb::FlushOptions(), store.handle(Cf::kRecords)).ok());
  }
}

// A compaction that ends during the pass deletes the files it read: the pass must still read
// every file it listed (before, it reported one of them missing as damage, which failed the
// journal closed on a healthy store).
TEST(JournalStoreTest, FilesCompactedDuringTheChecksumPassAreNotDamage) {
  const std::atomic<bool> never{false};
  for (int round = 0; round < 10; ++round) {
    TempDir dir;
    std::unique_ptr<JournalStore> store = OpenStore(dir);
    ASSERT_TRUE(store);
    WriteTables(*store, 12, 2000);
    std::atomic<bool> compacted{false};
    std::thread compaction([&] {
      rocksdb::CompactRangeOptions options;
      options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
      EXPECT_TRUE(
          store->db()->CompactRange(options, store->handle(Cf::kRecords), nullptr, nullptr).ok());
      compacted = true;
    });
    int passes = 0;
    while (!compacted.load() || passes == 0) {
      const Status s = store->VerifyTableChecksums(never);
      ASSERT_TRUE(s.ok()) << "round " << round << ", pass " << passes << ": " << s.ToString();
      ++passes;
    }
    compaction.join();
    EXPECT_TRUE(store->VerifyTableChecksums(never).ok());
  }
}

}  // namespace
}  // namespace verdict::journal
