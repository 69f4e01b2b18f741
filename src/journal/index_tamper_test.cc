// Index entries edited on disk (the hash chain does not cover them): a read through an entry
// that reaches another record than the one asked for is kDataLoss naming the entry, and
// Verify reports an entry removed (a decision hidden from its account) or added.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "journal/envelope.h"
#include "journal/index_keys.h"
#include "journal/journal.h"
#include "journal/store.h"
#include "journal/stored_record.h"
#include "journal/test_util.h"
#include "journal/verifier.h"

namespace verdict::journal {
namespace index_tamper_test {

using testing_util::MakeRecord;
using testing_util::OpenOrDie;
using testing_util::TempDir;
using testing_util::TestUuid;
using testing_util::VerifyDir;
using testing_util::WriteEntries;

class IndexTamperTest : public ::testing::Test {
 protected:
  // Records 1..6 of bank-a, then one admin event (record 7).
  void SetUp() override {
    options_.data_dir = dir_.Sub("data");
    auto j = OpenOrDie(options_);
    ASSERT_TRUE(j);
    for (auto& r : WriteEntries(*j, 1, 6)) ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(j->RecordAdminEvent({"bank-a", "admin", "keys.create", "k1", "{}"}).ok());
  }

  // As an insider with disk access: the store opened directly, one batch written.
  void Tamper(const std::function<void(const JournalStore&, rocksdb::WriteBatch&)>& edit) {
    StoreOptions so;
    so.data_dir = options_.data_dir;
    auto store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    rocksdb::WriteBatch batch;
    edit(**store, batch);
    ASSERT_TRUE((*store)->Write(batch, true).ok());
  }

  static void ExpectDataLossNaming(const Status& s, const std::string& name) {
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.ToString();
  }

  TempDir dir_;
  JournalOptions options_;
};

TEST_F(IndexTamperTest, TheUntouchedJournalReadsAndVerifies) {
  VerifyReport report = VerifyDir(options_.data_dir);
  EXPECT_TRUE(report.ok) << report.problem;
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->FindByDecisionId(TestUuid(2)).ok());
  EXPECT_EQ(j->ListByAccount("bank-a", MakeRecord(3).accounts[0], 10)->size(), 1u);
  EXPECT_EQ(j->ListAdminEvents("bank-a", 10)->size(), 1u);
}

TEST_F(IndexTamperTest, ADecisionIdPointedAtAnotherDecisionIsRefused) {
  Tamper([](const JournalStore& s, rocksdb::WriteBatch& b) {
    const Uuid id = TestUuid(2);
    b.Put(s.handle(Cf::kByDecision),
          rocksdb::Slice(reinterpret_cast<const char*>(id.bytes.data()), 16), SeqKey(4));
  });
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  ExpectDataLossNaming(j->FindByDecisionId(TestUuid(2)).status(), TestUuid(2).ToString());
}

TEST_F(IndexTamperTest, ADecisionIdAddedIsRefusedAndReported) {
  Tamper([](const JournalStore& s, rocksdb::WriteBatch& b) {
    const Uuid id = TestUuid(99);
    b.Put(s.handle(Cf::kByDecision),
          rocksdb::Slice(reinterpret_cast<const char*>(id.bytes.data()), 16), SeqKey(4));
  });
  VerifyReport report = VerifyDir(options_.data_dir);
  EXPECT_FALSE(report.ok);
  EXPECT_NE(report.problem.find(TestUuid(99).ToString()), std::string::npos) << report.problem;
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  ExpectDataLossNaming(j->FindByDecisionId(TestUuid(99)).status(), TestUuid(99).ToString());
}

TEST_F(IndexTamperTest, ATransactionPointedAtAnotherDecisionIsRefused) {
  Tamper([](const JournalStore& s, rocksdb::WriteBatch& b) {
    b.Put(s.handle(Cf::kByTransaction), TransactionKey("bank-a", "tx-2"), SeqKey(4));
  });
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  ExpectDataLossNaming(j->FindByTransaction("bank-a", "tx-2").status(), "bank-a/tx-2");
  ExpectDataLossNaming(j->CheckIdempotency("bank-a", "tx-2", "{}").status(), "bank-a/tx-2");
}

TEST_F(IndexTamperTest, ADecisionAddedToAnAccountIsRefusedAndReported) {
  const std::string account = MakeRecord(1).accounts[0];  // not an account of record 5
  Tamper([&](const JournalStore& s, rocksdb::WriteBatch& b) {
    b.Put(s.handle(Cf::kByAccount), AccountKey("bank-a", account, 5), rocksdb::Slice());
  });
  VerifyReport report = VerifyDir(options_.data_dir);
  EXPECT_FALSE(report.ok);
  EXPECT_NE(report.problem.find("by_account"), std::string::npos) << report.problem;
  EXPECT_NE(report.problem.find(account), std::string::npos) << report.problem;
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  ExpectDataLossNaming(j->ListByAccount("bank-a", account, 10).status(), "bank-a/" + account);
}

TEST_F(IndexTamperTest, ADecisionHiddenFromItsAccountIsReported) {
  const std::string account = MakeRecord(3).accounts[0];
  Tamper([&](const JournalStore& s, rocksdb::WriteBatch& b) {
    b.Delete(s.handle(Cf::kByAccount), AccountKey("bank-a", account, 3));
  });
  VerifyReport report = VerifyDir(options_.data_dir);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 3u);
  EXPECT_NE(report.problem.find("account index lacks this record under account " + account),
            std::string::npos)
      << report.problem;
}

TEST_F(IndexTamperTest, AnAdminEventMovedToAnotherTenantIsRefused) {
  Tamper([](const JournalStore& s, rocksdb::WriteBatch& b) {
    b.Delete(s.handle(Cf::kByAccount), AdminEventKey("bank-a", 7));
    b.Put(s.handle(Cf::kByAccount), AdminEventKey("bank-b", 7), rocksdb::Slice());
  });
  VerifyReport report = VerifyDir(options_.data_dir);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 7u);
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  ExpectDataLossNaming(j->ListAdminEvents("bank-b", 10).status(), "bank-b/");
}

// With a KEK the index keys hold keyed hashes; an entry edited to point a hashed id at another
// decision is refused the same way, and a hidden one is reported by Verify with the KEK.
class HashedIndexTamperTest : public IndexTamperTest {
 protected:
  void SetUp() override {
    testing_util::WriteKek(dir_.Sub("kek"));
    options_.kek_file = dir_.Sub("kek");
    options_.cipher = PayloadCipherKind::kSm4CtrHmacSm3;
    IndexTamperTest::SetUp();
  }

  // The index key as stored, unwrapped with the KEK: what an attacker with the KEK could do.
  std::unique_ptr<PayloadCipher> Cipher(const JournalStore& store) const {
    auto cipher = PayloadCipher::FromKekFile(options_.kek_file);
    EXPECT_TRUE(cipher.ok());
    uint32_t max_id = 0;
    EXPECT_TRUE(LoadDataKeys(store, **cipher, &max_id).ok());
    EXPECT_TRUE((*cipher)->has_index_key());
    return std::move(cipher).value();
  }

  VerifyReport VerifyWithKek() const {
    VerifyOptions vo;
    vo.data_dir = options_.data_dir;
    vo.kek_file = options_.kek_file;
    auto report = Verify(vo);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : VerifyReport{};
  }
};

TEST_F(HashedIndexTamperTest, TheUntouchedJournalReadsAndVerifies) {
  VerifyReport report = VerifyWithKek();
  EXPECT_TRUE(report.ok) << report.problem;
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->FindByTransaction("bank-a", "tx-2")->has_value());
  EXPECT_EQ(j->ListByAccount("bank-a", MakeRecord(3).accounts[0], 10)->size(), 1u);
}

TEST_F(HashedIndexTamperTest, AHashedTransactionPointedAtAnotherDecisionIsRefused) {
  Tamper([this](const JournalStore& s, rocksdb::WriteBatch& b) {
    b.Put(s.handle(Cf::kByTransaction), IndexedTransactionKey(Cipher(s).get(), "bank-a", "tx-2"),
          SeqKey(4));
  });
  auto j = OpenOrDie(options_);
  ASSERT_TRUE(j);
  ExpectDataLossNaming(j->FindByTransaction("bank-a", "tx-2").status(), "bank-a/tx-2");
  ExpectDataLossNaming(j->CheckIdempotency("bank-a", "tx-2", "{}").status(), "bank-a/tx-2");
}

TEST_F(HashedIndexTamperTest, ADecisionHiddenFromItsHashedAccountIsReported) {
  const std::string account = MakeRecord(3).accounts[0];
  Tamper([&](const JournalStore& s, rocksdb::WriteBatch& b) {
    b.Delete(s.handle(Cf::kByAccount),
             AccountKey("bank-a", IndexedAccount(Cipher(s).get(), "bank-a", account), 3));
  });
  VerifyReport report = VerifyWithKek();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 3u);
}

}  // namespace index_tamper_test
}  // namespace verdict::journal
