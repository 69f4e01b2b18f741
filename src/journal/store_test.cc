// JournalStore with a buffered WAL (StoreOptions::buffer_wal, manual_wal_flush): what the
// journal's commit log relies on. A write that asks for a sync, SyncWal and a clean close each
// put the buffered writes on disk; a power failure (FaultInjectingFileSystem losing appends not
// synced) takes only what none of them covered.
#include "journal/store.h"

#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <memory>
#include <optional>
#include <string>

#include "journal/fault_fs.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::TempDir;

class BufferedWalTest : public ::testing::Test {
 protected:
  std::unique_ptr<JournalStore> Open(bool buffer_wal, size_t write_buffer_bytes = 64 << 20) {
    StoreOptions options;
    options.data_dir = dir_.Sub("data");
    options.file_system = fs_;
    options.buffer_wal = buffer_wal;
    options.write_buffer_bytes = write_buffer_bytes;
    Result<std::unique_ptr<JournalStore>> store = JournalStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  static Status Put(JournalStore& store, const std::string& key, bool sync) {
    rocksdb::WriteBatch batch;
    batch.Put(store.handle(Cf::kRegistry), key, "v-" + key);
    return store.Write(batch, sync);
  }

  // The power fails while `store` is open: no later sync succeeds, not even at its close.
  void PowerFailure(std::unique_ptr<JournalStore> store) {
    fs_->set_fail_syncs(true);
    store.reset();
    fs_->set_fail_syncs(false);
    fs_->set_lose_unsynced_appends(false);
  }

  bool Has(const std::string& key) {
    std::unique_ptr<JournalStore> store = Open(/*buffer_wal=*/false);
    if (!store) return false;
    Result<std::optional<std::string>> value = store->Get(Cf::kRegistry, key);
    EXPECT_TRUE(value.ok()) << value.status().ToString();
    return value.ok() && value->has_value() && **value == "v-" + key;
  }

  TempDir dir_;
  std::shared_ptr<FaultInjectingFileSystem> fs_ = std::make_shared<FaultInjectingFileSystem>();
};

TEST_F(BufferedWalTest, AWriteThatAsksForASyncIsDurableWithEverythingBeforeIt) {
  std::unique_ptr<JournalStore> store = Open(/*buffer_wal=*/true);
  ASSERT_TRUE(store);
  fs_->set_lose_unsynced_appends(true);
  ASSERT_TRUE(Put(*store, "unsynced", /*sync=*/false).ok());
  ASSERT_TRUE(Put(*store, "synced", /*sync=*/true).ok());
  PowerFailure(std::move(store));
  EXPECT_TRUE(Has("unsynced"));
  EXPECT_TRUE(Has("synced"));
}

TEST_F(BufferedWalTest, SyncWalMakesTheBufferedWritesDurable) {
  std::unique_ptr<JournalStore> store = Open(/*buffer_wal=*/true);
  ASSERT_TRUE(store);
  fs_->set_lose_unsynced_appends(true);
  ASSERT_TRUE(Put(*store, "a", /*sync=*/false).ok());
  ASSERT_TRUE(Put(*store, "b", /*sync=*/false).ok());
  ASSERT_TRUE(store->SyncWal().ok());
  ASSERT_TRUE(Put(*store, "after", /*sync=*/false).ok());
  PowerFailure(std::move(store));
  EXPECT_TRUE(Has("a"));
  EXPECT_TRUE(Has("b"));
  EXPECT_FALSE(Has("after"));  // never synced: what the commit log's frames must restore
}

// RocksDB starts a new WAL with each new memtable: the old WAL's buffer must not be left behind.
TEST_F(BufferedWalTest, SyncWalCoversWritesFromBeforeAMemtableSwitch) {
  std::unique_ptr<JournalStore> store = Open(/*buffer_wal=*/true, /*write_buffer_bytes=*/4 << 20);
  ASSERT_TRUE(store);
  fs_->set_lose_unsynced_appends(true);
  const std::string padding(1000, 'p');
  constexpr int kPuts = 4000;
  for (int i = 0; i < kPuts; ++i) {  // 4 MB into the registry's 1 MB memtables
    rocksdb::WriteBatch batch;
    batch.Put(store->handle(Cf::kRegistry), "k" + std::to_string(i), padding);
    ASSERT_TRUE(store->Write(batch, /*sync=*/false).ok());
  }
  uint64_t in_active_memtable = 0;
  ASSERT_TRUE(store->db()->GetIntProperty(
      store->handle(Cf::kRegistry), "rocksdb.num-entries-active-mem-table", &in_active_memtable));
  ASSERT_LT(in_active_memtable, static_cast<uint64_t>(kPuts));  // the premise: it switched
  ASSERT_TRUE(Put(*store, "last", /*sync=*/false).ok());
  ASSERT_TRUE(store->SyncWal().ok());
  PowerFailure(std::move(store));
  std::unique_ptr<JournalStore> reopened = Open(/*buffer_wal=*/false);
  ASSERT_TRUE(reopened);
  for (int i = 0; i < kPuts; ++i) {
    Result<std::optional<std::string>> value =
        reopened->Get(Cf::kRegistry, "k" + std::to_string(i));
    ASSERT_TRUE(value.ok() && value->has_value()) << "k" << i << " lost";
  }
  reopened.reset();
  EXPECT_TRUE(Has("last"));
}

TEST_F(BufferedWalTest, ACleanCloseWritesTheBufferOut) {
  std::unique_ptr<JournalStore> store = Open(/*buffer_wal=*/true);
  ASSERT_TRUE(store);
  ASSERT_TRUE(Put(*store, "tail", /*sync=*/false).ok());
  store.reset();
  EXPECT_TRUE(Has("tail"));
}

}  // namespace
}  // namespace verdict::journal
