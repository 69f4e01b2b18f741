// Reads of a damaged journal: a stored record that cannot be read back (its bytes do not decode,
// its ciphertext does not decrypt) fails every read path with kDataLoss naming the record, or
// kUnavailable once the journal has failed closed, and never with the store's or decoder's own
// message nor with a code that would blame the caller.
#include <gtest/gtest.h>

#include "journal/fault_fs.h"
#include "journal/journal.h"
#include "journal/store.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace reads_test {

using testing_util::MakeEntry;
using testing_util::OpenOrDie;
using testing_util::TempDir;
using testing_util::WriteEntries;

constexpr uint64_t kDamaged = 3;
const std::string kDamagedMessage = "journal record 3 cannot be read back from the journal";

// Writes records 1..6 of bank-a into `o.data_dir`, then damages record kDamaged in the store:
// `garbage` replaces it with bytes that are no journal entry; otherwise its last byte (the
// payload's end: the ciphertext's tag when encrypted) is flipped.
void WriteAndDamage(const JournalOptions& o, bool garbage) {
  {
    auto j = OpenOrDie(o);
    ASSERT_TRUE(j);
    for (auto& r : WriteEntries(*j, 1, 6)) ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  StoreOptions so;
  so.data_dir = o.data_dir;
  auto store = JournalStore::Open(so);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::string value;
  ASSERT_TRUE(
      (*store)
          ->db()
          ->Get(rocksdb::ReadOptions(), (*store)->handle(Cf::kRecords), SeqKey(kDamaged), &value)
          .ok());
  if (garbage) {
    value = "not a journal entry";
  } else {
    value.back() = static_cast<char>(value.back() ^ 0x01);
  }
  rocksdb::WriteBatch b;
  b.Put((*store)->handle(Cf::kRecords), SeqKey(kDamaged), value);
  ASSERT_TRUE((*store)->Write(b, true).ok());
}

// Options for a journal whose reads are under test: the background verification would find the
// damaged record on its own and fail the journal closed, racing the reads' kDataLoss.
JournalOptions ReadPathOptions(const TempDir& dir) {
  JournalOptions o;
  o.data_dir = dir.Sub("data");
  o.verify_in_background = false;
  return o;
}

void ExpectDataLoss(const Status& s) {
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  EXPECT_EQ(s.message(), kDamagedMessage);
  EXPECT_TRUE(s.field().empty());
}

// Every read that reaches the damaged record: by sequence, decision id, transaction (and the
// idempotency check behind POST /v1/decisions), account; the records around it still read.
void ExpectEveryReadFails(const Journal& j) {
  ExpectDataLoss(j.ReadRecord(kDamaged).status());
  ExpectDataLoss(j.FindByDecisionId(testing_util::TestUuid(kDamaged)).status());
  ExpectDataLoss(j.FindByTransaction("bank-a", "tx-3").status());
  ExpectDataLoss(j.CheckIdempotency("bank-a", "tx-3", "{}").status());
  const JournalRecord damaged = testing_util::MakeRecord(kDamaged);
  ExpectDataLoss(j.ListByAccount("bank-a", damaged.accounts[0], 10).status());
  ExpectDataLoss(j.ListByAccount("bank-a", damaged.accounts[1], 10).status());
  EXPECT_TRUE(j.ReadRecord(kDamaged - 1).ok());
  EXPECT_TRUE(j.ReadRecord(kDamaged + 1).ok());
  EXPECT_TRUE(j.FindByTransaction("bank-a", "tx-4").ok());
}

TEST(JournalReadsTest, UndecodableRecordIsDataLossOnEveryRead) {
  TempDir dir;
  JournalOptions o = ReadPathOptions(dir);
  WriteAndDamage(o, /*garbage=*/true);
  auto j = OpenOrDie(o);
  ASSERT_TRUE(j);
  ExpectEveryReadFails(*j);
}

TEST(JournalReadsTest, RecordThatDoesNotDecryptIsDataLossOnEveryRead) {
  TempDir dir;
  JournalOptions o = ReadPathOptions(dir);
  testing_util::WriteKek(dir.Sub("kek"));
  o.kek_file = dir.Sub("kek");
  WriteAndDamage(o, /*garbage=*/false);
  auto j = OpenOrDie(o);
  ASSERT_TRUE(j);
  ExpectEveryReadFails(*j);
}

// SM4-CTR/HMAC-SM3: the flipped last byte is the MAC's.
TEST(JournalReadsTest, RecordWhoseSm4MacDoesNotMatchIsDataLossOnEveryRead) {
  TempDir dir;
  JournalOptions o = ReadPathOptions(dir);
  testing_util::WriteKek(dir.Sub("kek"));
  o.kek_file = dir.Sub("kek");
  o.cipher = PayloadCipherKind::kSm4CtrHmacSm3;
  WriteAndDamage(o, /*garbage=*/false);
  auto j = OpenOrDie(o);
  ASSERT_TRUE(j);
  ExpectEveryReadFails(*j);
}

TEST(JournalReadsTest, DamagedRecordIsUnavailableOnceFailedClosed) {
  TempDir dir;
  JournalOptions o = ReadPathOptions(dir);
  WriteAndDamage(o, /*garbage=*/true);
  auto fs = std::make_shared<FaultInjectingFileSystem>();
  o.file_system = fs;
  auto j = OpenOrDie(o);
  ASSERT_TRUE(j);
  fs->set_fail_writes(true);
  for (auto& r : WriteEntries(*j, 7, 8)) EXPECT_FALSE(r.ok());
  ASSERT_FALSE(j->healthy());
  for (const Status& s :
       {j->ReadRecord(kDamaged).status(), j->FindByTransaction("bank-a", "tx-3").status()}) {
    EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
    EXPECT_EQ(s.message(),
              "the journal has failed closed: journal record 3 cannot be read until the engine "
              "restarts");
  }
}

}  // namespace reads_test
}  // namespace verdict::journal
