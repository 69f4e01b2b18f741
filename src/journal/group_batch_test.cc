// ReadGroupBatch against RocksDB's own encoding, the malformed batches it refuses, and the
// journal's rule on what a group commit's batch may hold (CheckGroupBatch).
#include "journal/group_batch.h"

#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <string>

#include "journal/store.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::TempDir;

std::unique_ptr<JournalStore> OpenFreshStore(const TempDir& dir) {
  StoreOptions so;
  so.data_dir = dir.Sub("data");
  Result<std::unique_ptr<JournalStore>> store = JournalStore::Open(so);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

TEST(GroupBatchTest, ReadsWhatRocksDbWrites) {
  TempDir dir;
  std::unique_ptr<JournalStore> store = OpenFreshStore(dir);
  ASSERT_TRUE(store);
  rocksdb::WriteBatch batch;
  ASSERT_TRUE(batch.Put(store->handle(Cf::kRecords), "key one", "value one").ok());
  ASSERT_TRUE(batch.Delete(store->handle(Cf::kState), "account").ok());
  ASSERT_TRUE(batch.Put("default key", std::string(300, 'v')).ok());
  ASSERT_TRUE(batch.Delete("gone").ok());
  Result<std::vector<GroupBatchOp>> ops = ReadGroupBatch(batch.Data());
  ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  ASSERT_EQ(ops->size(), 4u);
  EXPECT_FALSE((*ops)[0].is_delete);
  EXPECT_EQ((*ops)[0].column_family, store->handle(Cf::kRecords)->GetID());
  EXPECT_EQ((*ops)[0].key, "key one");
  EXPECT_EQ((*ops)[0].value, "value one");
  EXPECT_TRUE((*ops)[1].is_delete);
  EXPECT_EQ((*ops)[1].column_family, store->handle(Cf::kState)->GetID());
  EXPECT_EQ((*ops)[1].key, "account");
  EXPECT_FALSE((*ops)[2].is_delete);
  EXPECT_EQ((*ops)[2].column_family, 0u);
  EXPECT_EQ((*ops)[2].key, "default key");
  EXPECT_EQ((*ops)[2].value, std::string(300, 'v'));  // a two-byte length
  EXPECT_TRUE((*ops)[3].is_delete);
  EXPECT_EQ((*ops)[3].column_family, 0u);
  EXPECT_EQ((*ops)[3].key, "gone");
}

TEST(GroupBatchTest, RefusesWhatIsNotAPutOrDeleteBatch) {
  const std::string header_of_one = std::string(8, '\0') + std::string("\x01\x00\x00\x00", 4);
  const std::string header_of_none(12, '\0');
  const std::pair<std::string, std::string> cases[] = {
      {"", "shorter than the 12-byte header"},
      {std::string(11, '\0'), "shorter than the 12-byte header"},
      {header_of_one, "count says 1 operations but it holds 0"},
      {header_of_none + "\x01\x01k\x01v", "more operations than its count"},
      {header_of_one + "\x02\x01k\x01v", "an operation of kind 2"},  // a merge
      {header_of_one + std::string("\x05\x80", 2), "a truncated or over-long column family"},
      // A fifth varint byte over 4 bits, and a sixth byte: more than 32 bits.
      {header_of_one + "\x05\xff\xff\xff\xff\x10\x01k\x01v", "over-long column family"},
      {header_of_one + "\x05\xff\xff\xff\xff\x8f\x01\x01k\x01v", "over-long column family"},
      {header_of_one + "\x05\x02\x09key", "a truncated or over-long key"},
      {header_of_one + "\x01\x01k\x05v", "a truncated or over-long value"},
      {header_of_one + std::string("\x01\x01k\x01v\x00", 6), "more operations than its count"},
      {testing_util::kBatchThatAbortsRocksDb, "not a put or a delete"},
  };
  // The largest column family a varint32 holds is read whole.
  Result<std::vector<GroupBatchOp>> widest =
      ReadGroupBatch(header_of_one + "\x05\xff\xff\xff\xff\x0f\x01k\x01v");
  ASSERT_TRUE(widest.ok()) << widest.status().ToString();
  EXPECT_EQ((*widest)[0].column_family, 0xffffffffu);
  for (const auto& [bytes, why] : cases) {
    Result<std::vector<GroupBatchOp>> ops = ReadGroupBatch(bytes);
    ASSERT_FALSE(ops.ok()) << why;
    EXPECT_NE(ops.status().message().find(why), std::string::npos) << ops.status().message();
    EXPECT_NE(ops.status().message().find("at byte"), std::string::npos);
  }
}

// What CheckGroupBatch refuses, and the message that says why.
std::string RefusalOf(const JournalStore& store, const rocksdb::WriteBatch& batch) {
  Result<std::vector<GroupBatchOp>> ops = CheckGroupBatch(store, batch.Data(), 3, 4);
  return ops.ok() ? "" : ops.status().message();
}

TEST(GroupBatchTest, AGroupsBatchHoldsItsRecordsPutsToTheJournalsFamiliesAndStateDeletes) {
  TempDir dir;
  std::unique_ptr<JournalStore> store = OpenFreshStore(dir);
  ASSERT_TRUE(store);
  rocksdb::WriteBatch good;
  ASSERT_TRUE(good.Put(store->handle(Cf::kRecords), SeqKey(3), "record 3").ok());
  ASSERT_TRUE(good.Put(store->handle(Cf::kByDecision), "id", SeqKey(3)).ok());
  ASSERT_TRUE(good.Delete(store->handle(Cf::kState), "account").ok());
  ASSERT_TRUE(good.Put(store->handle(Cf::kRecords), SeqKey(4), "record 4").ok());
  EXPECT_EQ(RefusalOf(*store, good), "");

  rocksdb::WriteBatch deletes_a_record(good.Data());
  ASSERT_TRUE(deletes_a_record.Delete(store->handle(Cf::kRecords), SeqKey(2)).ok());
  EXPECT_NE(RefusalOf(*store, deletes_a_record).find("a delete outside account state"),
            std::string::npos);

  rocksdb::WriteBatch to_the_default_family(good.Data());
  ASSERT_TRUE(to_the_default_family.Put("key", "value").ok());
  EXPECT_NE(RefusalOf(*store, to_the_default_family).find("column family 0,"), std::string::npos);

  rocksdb::WriteBatch lacks_record_4;
  ASSERT_TRUE(lacks_record_4.Put(store->handle(Cf::kRecords), SeqKey(3), "record 3").ok());
  EXPECT_NE(RefusalOf(*store, lacks_record_4).find("records only to 3 of its group 3..4"),
            std::string::npos);

  rocksdb::WriteBatch out_of_order;
  ASSERT_TRUE(out_of_order.Put(store->handle(Cf::kRecords), SeqKey(4), "record 4").ok());
  ASSERT_TRUE(out_of_order.Put(store->handle(Cf::kRecords), SeqKey(3), "record 3").ok());
  EXPECT_NE(RefusalOf(*store, out_of_order).find("a record other than the next of its group (3)"),
            std::string::npos);

  const std::string unknown_family =
      std::string(8, '\0') + std::string("\x01\x00\x00\x00", 4) + "\x05\x63\x01k\x01v";
  Result<std::vector<GroupBatchOp>> refused = CheckGroupBatch(*store, unknown_family, 3, 4);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("column family 99"), std::string::npos);
}

}  // namespace
}  // namespace verdict::journal
