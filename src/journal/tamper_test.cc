// Tamper tests: every kind of alteration an attacker without the signing key can make to the
// stored journal is detected by Verify, at the right record. Hundreds of random trials run
// against one store, each tamper undone before the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/journal.h"
#include "journal/test_util.h"
#include "journal/verifier.h"

namespace verdict::journal {
namespace {

using testing_util::MakeEntry;
using testing_util::TempDir;

constexpr uint64_t kRecords = 48;

using Snapshot = std::map<std::string, std::string>;

class TamperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    JournalOptions o;
    o.data_dir = dir_.Sub("data");
    o.checkpoint_every_records = 8;
    o.max_group_size = 4;  // several groups, so several checkpoints
    if (encrypted_) {
      testing_util::WriteKek(dir_.Sub("kek"));
      o.kek_file = dir_.Sub("kek");
      o.cipher = cipher_;
    }
    {
      auto j = Journal::Open(o);
      ASSERT_TRUE(j.ok()) << j.status().ToString();
      for (uint64_t i = 1; i <= kRecords; ++i) {
        ASSERT_TRUE((*j)->Enqueue(MakeEntry(i), [](const Result<CommitInfo>&) {}).ok());
      }
      ASSERT_TRUE((*j)->Flush().ok());
      key_ = (*j)->public_key();
    }
    StoreOptions so;
    so.data_dir = dir_.Sub("data");
    auto store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok());
    store_ = std::move(store).value();
    for (Cf cf : {Cf::kRecords, Cf::kCheckpoints, Cf::kMeta}) snapshot_[cf] = Read(cf);
    ASSERT_GE(snapshot_[Cf::kCheckpoints].size(), 3u);
    VerifyReport clean = VerifyNow();
    ASSERT_TRUE(clean.ok) << clean.problem;
    ASSERT_EQ(clean.records, kRecords);
  }

  Snapshot Read(Cf cf) {
    Snapshot out;
    auto it = store_->NewIterator(cf);
    for (it->SeekToFirst(); it->Valid(); it->Next())
      out[it->key().ToString()] = it->value().ToString();
    return out;
  }

  VerifyReport VerifyNow() {
    auto r = VerifyStore(*store_, key_, nullptr, /*check_payloads=*/true);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : VerifyReport{};
  }

  void Put(Cf cf, const std::string& key, const std::string& value) {
    rocksdb::WriteBatch b;
    b.Put(store_->handle(cf), key, value);
    ASSERT_TRUE(store_->Write(b, false).ok());
  }
  void Delete(Cf cf, const std::string& key) {
    rocksdb::WriteBatch b;
    b.Delete(store_->handle(cf), key);
    ASSERT_TRUE(store_->Write(b, false).ok());
  }
  std::string Record(uint64_t seq) { return snapshot_[Cf::kRecords][SeqKey(seq)]; }

  void Restore() {
    rocksdb::WriteBatch b;
    for (Cf cf : {Cf::kRecords, Cf::kCheckpoints, Cf::kMeta}) {
      for (const auto& [k, v] : Read(cf)) {
        if (!snapshot_[cf].contains(k)) b.Delete(store_->handle(cf), k);
      }
      for (const auto& [k, v] : snapshot_[cf]) b.Put(store_->handle(cf), k, v);
    }
    ASSERT_TRUE(store_->Write(b, false).ok());
  }

  std::vector<uint64_t> CheckpointSizes() {
    std::vector<uint64_t> out;
    for (const auto& [k, v] : snapshot_[Cf::kCheckpoints]) out.push_back(ParseSeqKey(k));
    return out;
  }

  // Applies one random tamper; returns the first bad sequence number Verify must report.
  uint64_t RandomTamper(std::mt19937_64& rng, std::string* what) {
    auto pick = [&](uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo + 1); };
    switch (rng() % 8) {
      case 0: {  // flip one bit anywhere in a record
        uint64_t seq = pick(1, kRecords);
        std::string v = Record(seq);
        v[rng() % v.size()] ^= static_cast<char>(1 << (rng() % 8));
        Put(Cf::kRecords, SeqKey(seq), v);
        *what = "flip in record " + std::to_string(seq);
        return seq;
      }
      case 1: {  // delete a record
        uint64_t seq = pick(1, kRecords);
        Delete(Cf::kRecords, SeqKey(seq));
        *what = "delete record " + std::to_string(seq);
        return seq;
      }
      case 2: {  // swap two records
        uint64_t a = pick(1, kRecords - 1);
        uint64_t b = pick(a + 1, kRecords);
        Put(Cf::kRecords, SeqKey(a), Record(b));
        Put(Cf::kRecords, SeqKey(b), Record(a));
        *what = "swap " + std::to_string(a) + " and " + std::to_string(b);
        return a;
      }
      case 3: {  // truncate the tail
        uint64_t from = pick(1, kRecords);
        for (uint64_t s = from; s <= kRecords; ++s) Delete(Cf::kRecords, SeqKey(s));
        *what = "truncate from " + std::to_string(from);
        return from;
      }
      case 4: {  // duplicate a record over another
        uint64_t src = pick(1, kRecords);
        uint64_t dst = pick(1, kRecords);
        if (dst == src) dst = src == kRecords ? 1 : src + 1;
        Put(Cf::kRecords, SeqKey(dst), Record(src));
        *what = "copy " + std::to_string(src) + " over " + std::to_string(dst);
        return dst;
      }
      case 5: {  // duplicate a record at the end
        uint64_t src = pick(1, kRecords);
        Put(Cf::kRecords, SeqKey(kRecords + 1), Record(src));
        *what = "append copy of " + std::to_string(src);
        return kRecords + 1;
      }
      case 6: {  // replace a checkpoint with an older one
        std::vector<uint64_t> sizes = CheckpointSizes();
        size_t newer = 1 + rng() % (sizes.size() - 1);
        size_t older = rng() % newer;
        Put(Cf::kCheckpoints, SeqKey(sizes[newer]),
            snapshot_[Cf::kCheckpoints][SeqKey(sizes[older])]);
        *what = "checkpoint " + std::to_string(sizes[newer]) + " replaced by " +
                std::to_string(sizes[older]);
        return sizes[newer];
      }
      default: {  // flip one bit in a checkpoint
        std::vector<uint64_t> sizes = CheckpointSizes();
        uint64_t size = sizes[rng() % sizes.size()];
        std::string v = snapshot_[Cf::kCheckpoints][SeqKey(size)];
        v[rng() % v.size()] ^= static_cast<char>(1 << (rng() % 8));
        Put(Cf::kCheckpoints, SeqKey(size), v);
        *what = "flip in checkpoint " + std::to_string(size);
        return size;
      }
    }
  }

  void RunTrials(int trials, uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int t = 0; t < trials; ++t) {
      std::string what;
      uint64_t expected_bad = RandomTamper(rng, &what);
      VerifyReport r = VerifyNow();
      EXPECT_FALSE(r.ok) << "undetected: " << what;
      EXPECT_EQ(r.first_bad_seq, expected_bad) << what << ": " << r.problem;
      EXPECT_FALSE(r.problem.empty());
      Restore();
      VerifyReport clean = VerifyNow();
      ASSERT_TRUE(clean.ok) << "restore after " << what << " failed: " << clean.problem;
    }
  }

  bool encrypted_ = false;
  PayloadCipherKind cipher_ = PayloadCipherKind::kAes256Gcm;
  TempDir dir_;
  std::unique_ptr<JournalStore> store_;
  PublicKey key_{};
  std::map<Cf, Snapshot> snapshot_;
};

TEST_F(TamperTest, DetectsEveryRandomTamperAtTheRightRecord) { RunTrials(400, 20261202); }

TEST_F(TamperTest, DetectsAChainRewrittenWithoutTheKey) {
  // Re-hash the whole chain after altering record 10: the chain and the head are consistent
  // again, so only the signed checkpoints can tell.
  Digest prev = kGenesisHash;
  rocksdb::WriteBatch b;
  CompactMerkle merkle;
  for (uint64_t s = 1; s <= kRecords; ++s) {
    std::string stored = Record(s);
    Result<EntryView> e = DecodeEntry(stored);
    ASSERT_TRUE(e.ok());
    std::string payload(e->payload);
    if (s == 10) {
      JournalRecord rec;
      ASSERT_TRUE(DecodeRecordPayload(payload, rec).ok());
      rec.decision.outcome = Outcome::kAllow;
      rec.decision.score = 0.01;
      payload.clear();
      EncodeRecordPayload(rec, payload);
    }
    std::string value;
    prev = EncodeEntry(s, e->flags, prev, payload, value);
    merkle.AppendLeafHash(MerkleLeafHash(AsBytes(prev)));
    b.Put(store_->handle(Cf::kRecords), SeqKey(s), value);
  }
  Result<std::optional<JournalHead>> head = ReadStoredHead(*store_);
  ASSERT_TRUE(head.ok() && head->has_value());
  b.Put(store_->handle(Cf::kMeta), kMetaHeadKey,
        EncodeHead(JournalHead{kRecords, prev, merkle, (*head)->state_digest}));
  ASSERT_TRUE(store_->Write(b, false).ok());
  VerifyReport r = VerifyNow();
  EXPECT_FALSE(r.ok);
  std::vector<uint64_t> sizes = CheckpointSizes();
  uint64_t first_covering =
      *std::find_if(sizes.begin(), sizes.end(), [](uint64_t n) { return n >= 10; });
  EXPECT_EQ(r.first_bad_seq, first_covering) << r.problem;
  EXPECT_NE(r.problem.find("Merkle root"), std::string::npos) << r.problem;
}

TEST_F(TamperTest, RejectsCheckpointsSignedByAnotherKey) {
  auto other = CheckpointSigner::Create(std::string(32, '\x11'));
  ASSERT_TRUE(other.ok());
  uint64_t size = CheckpointSizes()[1];
  Result<Checkpoint> cp = DecodeCheckpoint(snapshot_[Cf::kCheckpoints][SeqKey(size)]);
  ASSERT_TRUE(cp.ok());
  ASSERT_TRUE((*other)->Sign(*cp).ok());
  Put(Cf::kCheckpoints, SeqKey(size), EncodeCheckpoint(*cp));
  VerifyReport r = VerifyNow();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.first_bad_seq, size);
  EXPECT_NE(r.problem.find("signature"), std::string::npos);
}

class EncryptedTamperTest : public TamperTest {
 protected:
  EncryptedTamperTest() { encrypted_ = true; }
};

TEST_F(EncryptedTamperTest, DetectsRandomTampersOnCiphertextWithoutTheKek) {
  EXPECT_EQ(VerifyNow().encrypted_records, kRecords);
  RunTrials(100, 7);
}

class Sm4TamperTest : public TamperTest {
 protected:
  Sm4TamperTest() {
    encrypted_ = true;
    cipher_ = PayloadCipherKind::kSm4CtrHmacSm3;
  }
};

TEST_F(Sm4TamperTest, DetectsRandomTampersOnSm4CiphertextWithoutTheKek) {
  EXPECT_EQ(VerifyNow().encrypted_records, kRecords);
  RunTrials(100, 7);
}

TEST(TamperOnDiskTest, VerifyOfTheDataDirReportsTheFirstBadRecord) {
  TempDir dir;
  JournalOptions o;
  o.data_dir = dir.Sub("data");
  {
    auto j = Journal::Open(o);
    ASSERT_TRUE(j.ok());
    for (uint64_t i = 1; i <= 20; ++i) {
      ASSERT_TRUE((*j)->Enqueue(MakeEntry(i), [](const Result<CommitInfo>&) {}).ok());
    }
  }
  {
    StoreOptions so;
    so.data_dir = o.data_dir;
    auto store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok());
    auto v = (*store)->Get(Cf::kRecords, SeqKey(13));
    std::string altered = **v;
    altered[100] ^= 0x04;
    rocksdb::WriteBatch b;
    b.Put((*store)->handle(Cf::kRecords), SeqKey(13), altered);
    ASSERT_TRUE((*store)->Write(b, true).ok());
  }
  VerifyOptions vo;
  vo.data_dir = o.data_dir;
  auto r = Verify(vo);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->first_bad_seq, 13u);
  EXPECT_EQ(r->records, 12u);
  EXPECT_NE(VerifyReportToJson(*r).find("\"first_bad_seq\":13"), std::string::npos);
}

}  // namespace
}  // namespace verdict::journal
