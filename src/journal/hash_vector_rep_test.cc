// HashVectorRepFactory against a model (std::map) through a real RocksDB: point reads, total
// and prefix iteration both ways, overwrites, deletes and snapshots, before and after the
// memtable is flushed (the flush iterates the rep in total order to write the table).
#include "journal/hash_vector_rep.h"

#include <gtest/gtest.h>
#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/slice_transform.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace verdict::journal {
namespace {

// The first 4 bytes of a key are its prefix (like an account); shorter keys are out of domain.
class FourBytePrefix : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "test.FourBytePrefix"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return rocksdb::Slice(key.data(), 4);
  }
  bool InDomain(const rocksdb::Slice& key) const override { return key.size() >= 4; }
};

// Parameters: with a prefix extractor; with the hash table (Lookup::kHashed) or without.
class HashVectorRepTest : public ::testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hash_vector_rep_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::replace(dir_.begin() + static_cast<long>(dir_.rfind("hash_vector_rep_test_")), dir_.end(),
                 '/', '_');  // parameterized test names hold a '/'
    std::filesystem::remove_all(dir_);
    rocksdb::Options options;
    options.create_if_missing = true;
    options.allow_concurrent_memtable_write = false;
    options.memtable_factory = std::make_shared<HashVectorRepFactory>(
        options.comparator, std::get<1>(GetParam()) ? HashVectorRepFactory::Lookup::kHashed
                                                    : HashVectorRepFactory::Lookup::kScan);
    if (Prefixed()) options.prefix_extractor = std::make_shared<FourBytePrefix>();
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_, &db).ok());
    db_.reset(db);
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), key, value).ok());
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), key).ok());
    model_.erase(key);
  }

  // Every read the journal does agrees with the model.
  void ExpectMatchesModel() {
    for (const auto& [key, value] : model_) {
      std::string got;
      ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), key, &got).ok()) << key;
      EXPECT_EQ(got, value) << key;
    }
    std::string got;
    EXPECT_TRUE(db_->Get(rocksdb::ReadOptions(), "zzzz-absent", &got).IsNotFound());

    rocksdb::ReadOptions total;
    total.total_order_seek = true;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(total));
    std::vector<std::string> forward;
    for (it->SeekToFirst(); it->Valid(); it->Next()) forward.push_back(it->key().ToString());
    std::vector<std::string> expected;
    for (const auto& kv : model_) expected.push_back(kv.first);
    EXPECT_EQ(forward, expected);
    std::vector<std::string> backward;
    for (it->SeekToLast(); it->Valid(); it->Prev()) backward.push_back(it->key().ToString());
    std::reverse(backward.begin(), backward.end());
    EXPECT_EQ(backward, expected);

    // Seek and SeekForPrev to keys present and absent.
    for (const std::string& target : {std::string("acct2-"), std::string("acct5-0000000050"),
                                      std::string("b"), std::string("")}) {
      it->Seek(target);
      auto lower = model_.lower_bound(target);
      ASSERT_EQ(it->Valid(), lower != model_.end()) << target;
      if (it->Valid()) {
        EXPECT_EQ(it->key().ToString(), lower->first) << target;
      }
      it->SeekForPrev(target);
      auto upper = model_.upper_bound(target);
      ASSERT_EQ(it->Valid(), upper != model_.begin()) << target;
      if (it->Valid()) {
        EXPECT_EQ(it->key().ToString(), std::prev(upper)->first) << target;
      }
    }

    if (!Prefixed()) return;
    // Per-prefix listing, as the account index is read.
    for (int a = 0; a < 8; ++a) {
      std::string prefix = "acc" + std::to_string(a);
      rocksdb::ReadOptions same_prefix;
      same_prefix.prefix_same_as_start = true;
      std::unique_ptr<rocksdb::Iterator> p(db_->NewIterator(same_prefix));
      std::vector<std::string> listed;
      for (p->Seek(prefix); p->Valid(); p->Next()) listed.push_back(p->key().ToString());
      std::vector<std::string> want;
      for (auto i = model_.lower_bound(prefix); i != model_.end() && i->first.starts_with(prefix);
           ++i) {
        want.push_back(i->first);
      }
      EXPECT_EQ(listed, want) << prefix;
    }
  }

  static bool Prefixed() { return std::get<0>(GetParam()); }

  std::string dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::map<std::string, std::string> model_;
};

TEST_P(HashVectorRepTest, ReadsAgreeWithAModelBeforeAndAfterFlush) {
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) {
    int account = static_cast<int>(rng() % 8);
    char key[32];
    std::snprintf(key, sizeof key, "acc%d-%010u", account, static_cast<unsigned>(rng() % 2000));
    Put(key, "v" + std::to_string(i));
  }
  Put("ab", "short key, outside the prefix domain");
  Put("acc1-\x80\xff", "bytes above 0x7f sort after every ASCII byte");
  Put("\xff", "last key");
  for (int i = 0; i < 200; ++i) {
    auto victim = model_.begin();
    std::advance(victim, static_cast<long>(rng() % model_.size()));
    Delete(victim->first);
  }
  ExpectMatchesModel();

  // Flush in the middle of a stream of writes: the table holds what the memtable did.
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  ExpectMatchesModel();
  for (int i = 0; i < 1000; ++i) Put("acc3-" + std::to_string(100000 + i), "after flush");
  Put(model_.begin()->first, "overwritten after flush");
  ExpectMatchesModel();
}

TEST_P(HashVectorRepTest, ASnapshotSeesTheValueOfItsTime) {
  Put("acc1-key", "old");
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  Put("acc1-key", "new");
  Delete("acc1-gone");
  rocksdb::ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string got;
  ASSERT_TRUE(db_->Get(at_snapshot, "acc1-key", &got).ok());
  EXPECT_EQ(got, "old");
  ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), "acc1-key", &got).ok());
  EXPECT_EQ(got, "new");
  db_->ReleaseSnapshot(snapshot);
  ExpectMatchesModel();
}

// Keys that share a long prefix (as a tenant's do), differ only past their first bytes, or only
// in length or in trailing zero bytes come out of the flush in bytewise order, whether inserted
// shuffled or in key order (as records are, by sequence).
TEST_P(HashVectorRepTest, KeysSharingALongPrefixFlushInBytewiseOrder) {
  const std::string shared("tenant\0acc", 10);
  std::vector<std::string> tails = {"",
                                    std::string(1, '\0'),
                                    std::string(2, '\0'),
                                    std::string("\0\x01", 2),
                                    "\x01",
                                    "abcdefgh",
                                    "abcdefghi",
                                    std::string("abcdefgh\0", 9),
                                    "abcdefgg\xff",
                                    "abcdefgh\xff",
                                    "abcdefghij-0001",
                                    "abcdefghij-0002",
                                    "\xff\xff\xff\xff\xff\xff\xff\xff"};
  std::mt19937 rng(11);
  std::shuffle(tails.begin(), tails.end(), rng);
  for (const std::string& tail : tails) Put(shared + tail, "shuffled " + tail);
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  ExpectMatchesModel();
  // Appended in key order.
  for (int i = 0; i < 300; ++i) {
    char seq[16];
    std::snprintf(seq, sizeof seq, "%012d", i);
    Put(shared + "seq-" + seq, "in order");
  }
  ExpectMatchesModel();
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  ExpectMatchesModel();
}

// A comparator other than the bytewise one is honoured: the rep sorts with it, not bytewise.
TEST(HashVectorRepComparator, AReverseComparatorOrdersTheFlushedTable) {
  std::string dir = std::filesystem::temp_directory_path() /
                    ("hash_vector_rep_reverse_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.allow_concurrent_memtable_write = false;
  options.comparator = rocksdb::ReverseBytewiseComparator();
  options.memtable_factory = std::make_shared<HashVectorRepFactory>(options.comparator);
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  for (const char* key : {"b", "a", "c", "ab", "b"}) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, std::string("v-") + key).ok());
  }
  ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), "c").ok());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  std::vector<std::string> keys;
  for (it->SeekToFirst(); it->Valid(); it->Next()) keys.push_back(it->key().ToString());
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "ab", "a"}));
  it.reset();
  db.reset();
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(PrefixAndLookup, HashVectorRepTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<bool, bool>>& info) {
                           return std::string(std::get<0>(info.param) ? "Prefixed" : "WholeKey") +
                                  (std::get<1>(info.param) ? "Hashed" : "Scan");
                         });

}  // namespace
}  // namespace verdict::journal
