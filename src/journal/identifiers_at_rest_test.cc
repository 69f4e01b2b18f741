// A copied data directory names no customer: with encryption on, the account numbers and
// transaction ids of journaled decisions appear in no file under the data directory (store
// files, WAL, commit log), while every lookup by them still works after a restart. With
// encryption off the same search finds them, which shows the search can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <set>

#include "journal/journal.h"
#include "journal/store.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace identifiers_at_rest_test {

using testing_util::MakeEntry;
using testing_util::MakeRecord;
using testing_util::OpenOrDie;
using testing_util::TempDir;

constexpr uint64_t kRecords = 40;

enum class AtRest { kClear, kAes256Gcm, kSm4CtrHmacSm3 };

// Decisions 1..kRecords with their accounts in the record only. The account state family is
// keyed by the engine's own keys (tenant/account), which these entries leave out: that family is
// not covered here (docs/architecture.md, "Identifiers at rest").
void WriteDecisions(Journal& j, uint64_t first, uint64_t last) {
  std::vector<std::promise<Result<CommitInfo>>> done(last - first + 1);
  for (uint64_t i = first; i <= last; ++i) {
    JournalEntry e = MakeEntry(i);
    e.state_updates.clear();
    auto* p = &done[i - first];
    Result<uint64_t> seq =
        j.Enqueue(std::move(e), [p](const Result<CommitInfo>& r) { p->set_value(r); });
    ASSERT_TRUE(seq.ok()) << seq.status().ToString();
  }
  for (auto& p : done) ASSERT_TRUE(p.get_future().get().ok());
}

// The distinct identifiers of decisions first..last: transaction ids and account numbers. Each
// is searched for with the byte after it, where a longer id would go on ("ACC-1" is in
// "ACC-12"): a match must be the id and then a byte no id of these has.
std::set<std::string> IdentifiersOf(uint64_t first, uint64_t last) {
  std::set<std::string> ids;
  for (uint64_t i = first; i <= last; ++i) {
    JournalRecord r = MakeRecord(i);
    ids.insert(r.decision.transaction_id);
    ids.insert(r.accounts.begin(), r.accounts.end());
  }
  return ids;
}

// The identifiers found in any file under `dir`, followed by a byte that is not a digit.
std::set<std::string> FoundIn(const std::string& dir, const std::set<std::string>& ids) {
  std::set<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::string& id : ids) {
      for (size_t at = bytes.find(id); at != std::string::npos; at = bytes.find(id, at + 1)) {
        const size_t next = at + id.size();
        if (next == bytes.size() || !std::isdigit(static_cast<unsigned char>(bytes[next]))) {
          found.insert(id);
          break;
        }
      }
    }
  }
  return found;
}

// The identifiers found in the keys of the families a lookup reads by them, decoded by the
// store: table files share key prefixes between neighbours and compress blocks, so a search of
// their bytes alone would miss some (the WAL and the commit log hold every key whole).
std::set<std::string> FoundInIndexKeys(const std::string& data_dir,
                                       const std::set<std::string>& ids) {
  StoreOptions so;
  so.data_dir = data_dir;
  so.read_only = true;
  auto store = JournalStore::Open(so);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  std::set<std::string> found;
  if (!store.ok()) return found;
  for (Cf cf : {Cf::kByTransaction, Cf::kByAccount}) {
    std::unique_ptr<rocksdb::Iterator> it = (*store)->NewIterator(cf);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string_view key = it->key().ToStringView();
      for (const std::string& id : ids) {
        const size_t at = key.find(id);
        const size_t next = at + id.size();
        if (at != std::string_view::npos &&
            (next == key.size() || !std::isdigit(static_cast<unsigned char>(key[next])))) {
          found.insert(id);
        }
      }
    }
  }
  return found;
}

class IdentifiersAtRestTest : public ::testing::TestWithParam<AtRest> {
 protected:
  IdentifiersAtRestTest() {
    if (GetParam() != AtRest::kClear) testing_util::WriteKek(dir_.Sub("kek"));
  }

  JournalOptions Options() const {
    JournalOptions o;
    o.data_dir = dir_.Sub("data");
    o.commit_log_bytes = uint64_t{1} << 20;  // the commit log is searched too
    o.min_free_bytes = 0;
    if (GetParam() != AtRest::kClear) {
      o.kek_file = dir_.Sub("kek");
      o.cipher = GetParam() == AtRest::kAes256Gcm ? PayloadCipherKind::kAes256Gcm
                                                  : PayloadCipherKind::kSm4CtrHmacSm3;
    }
    return o;
  }

  // Moves what the WAL and memtables hold into table files, so both are searched.
  void FlushStore() const {
    StoreOptions so;
    so.data_dir = dir_.Sub("data");
    auto store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (int cf = 0; cf < static_cast<int>(Cf::kCount); ++cf) {
      ASSERT_TRUE((*store)
                      ->db()
                      ->Flush(rocksdb::FlushOptions(), (*store)->handle(static_cast<Cf>(cf)))
                      .ok());
    }
  }

  TempDir dir_;
};

TEST_P(IdentifiersAtRestTest, NoAccountOrTransactionIdInAnyFileAndLookupsStillWork) {
  const std::set<std::string> ids = IdentifiersOf(1, kRecords);
  {
    auto j = OpenOrDie(Options());
    ASSERT_TRUE(j);
    WriteDecisions(*j, 1, kRecords);
    // Still open: WAL and commit log, before any flush.
    const std::set<std::string> found = FoundIn(dir_.Sub("data"), ids);
    if (GetParam() == AtRest::kClear) {
      EXPECT_EQ(found, ids);
    } else {
      EXPECT_TRUE(found.empty()) << *found.begin() << " and " << found.size() - 1 << " more";
    }
  }
  FlushStore();
  const std::set<std::string> found = FoundIn(dir_.Sub("data"), ids);
  const std::set<std::string> in_keys = FoundInIndexKeys(dir_.Sub("data"), ids);
  if (GetParam() == AtRest::kClear) {
    EXPECT_EQ(in_keys, ids);
  } else {
    EXPECT_TRUE(found.empty()) << *found.begin() << " and " << found.size() - 1 << " more";
    EXPECT_TRUE(in_keys.empty()) << *in_keys.begin() << " and " << in_keys.size() - 1 << " more";
  }

  // After a restart: by transaction, by account, the idempotency check and duplicate refusal.
  auto j = OpenOrDie(Options());
  ASSERT_TRUE(j);
  const JournalRecord seventh = MakeRecord(7);
  auto by_txn = j->FindByTransaction("bank-a", "tx-7");
  ASSERT_TRUE(by_txn.ok() && by_txn->has_value()) << by_txn.status().ToString();
  EXPECT_EQ((*by_txn)->record.decision.decision_id, seventh.decision.decision_id);
  EXPECT_FALSE(j->FindByTransaction("bank-b", "tx-7")->has_value());
  EXPECT_FALSE(j->FindByTransaction("bank-a", "tx-999")->has_value());
  auto idempotency = j->CheckIdempotency("bank-a", "tx-7", seventh.canonical_input);
  ASSERT_TRUE(idempotency.ok());
  EXPECT_EQ(idempotency->verdict, Idempotency::kReplay);
  for (const std::string& account : seventh.accounts) {
    auto listed = j->ListByAccount("bank-a", account, 100);
    ASSERT_TRUE(listed.ok()) << listed.status().ToString();
    size_t expected = 0;
    for (uint64_t i = 1; i <= kRecords; ++i) {
      const JournalRecord r = MakeRecord(i);
      expected += std::find(r.accounts.begin(), r.accounts.end(), account) != r.accounts.end();
    }
    EXPECT_EQ(listed->size(), expected) << account;
    for (const JournalRecord& r : *listed) {
      EXPECT_NE(std::find(r.accounts.begin(), r.accounts.end(), account), r.accounts.end());
    }
  }
  std::promise<Result<CommitInfo>> duplicate;
  Result<uint64_t> again =
      j->Enqueue(MakeEntry(7), [&](const Result<CommitInfo>& r) { duplicate.set_value(r); });
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  j.reset();

  VerifyOptions vo;
  vo.data_dir = dir_.Sub("data");
  vo.kek_file = Options().kek_file;
  auto report = Verify(vo);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok) << report->problem;
  EXPECT_EQ(report->records, kRecords);
}

INSTANTIATE_TEST_SUITE_P(Modes, IdentifiersAtRestTest,
                         ::testing::Values(AtRest::kClear, AtRest::kAes256Gcm,
                                           AtRest::kSm4CtrHmacSm3),
                         [](const auto& info) {
                           switch (info.param) {
                             case AtRest::kClear:
                               return "Clear";
                             case AtRest::kAes256Gcm:
                               return "Aes256Gcm";
                             case AtRest::kSm4CtrHmacSm3:
                               return "Sm4CtrHmacSm3";
                           }
                           return "";
                         });

// A journal that has records and no index key (written in the clear, or encrypted before index
// keys were hashed) keeps the clear form when opened with a KEK: its old records stay findable
// and new ones are indexed alike.
TEST(IdentifiersAtRestLegacyTest, AJournalWithRecordsAndNoIndexKeyKeepsClearIndexKeys) {
  TempDir dir;
  JournalOptions o;
  o.data_dir = dir.Sub("data");
  {
    auto j = OpenOrDie(o);
    ASSERT_TRUE(j);
    WriteDecisions(*j, 1, 5);
  }
  testing_util::WriteKek(dir.Sub("kek"));
  o.kek_file = dir.Sub("kek");
  o.cipher = PayloadCipherKind::kSm4CtrHmacSm3;
  {
    auto j = OpenOrDie(o);
    ASSERT_TRUE(j);
    WriteDecisions(*j, 6, 10);
  }
  const std::set<std::string> ids = IdentifiersOf(1, 10);
  EXPECT_EQ(FoundInIndexKeys(dir.Sub("data"), ids), ids);
  auto j = OpenOrDie(o);
  ASSERT_TRUE(j);
  for (const char* txn : {"tx-3", "tx-8"}) {
    auto found = j->FindByTransaction("bank-a", txn);
    ASSERT_TRUE(found.ok() && found->has_value()) << txn;
  }
  auto listed = j->ListByAccount("bank-a", MakeRecord(8).accounts[0], 100);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_FALSE(listed->empty());
}

// Without its KEK, an encrypted journal would take new records in the clear, indexed under
// clear ids beside the hashed ones: it refuses to open instead.
TEST(IdentifiersAtRestLegacyTest, AnEncryptedJournalDoesNotOpenWithoutItsKek) {
  TempDir dir;
  testing_util::WriteKek(dir.Sub("kek"));
  JournalOptions o;
  o.data_dir = dir.Sub("data");
  o.kek_file = dir.Sub("kek");
  {
    auto j = OpenOrDie(o);
    ASSERT_TRUE(j);
    WriteDecisions(*j, 1, 3);
  }
  o.kek_file.clear();
  auto j = Journal::Open(o);
  EXPECT_EQ(j.status().code(), StatusCode::kFailedPrecondition) << j.status().ToString();
}

}  // namespace identifiers_at_rest_test
}  // namespace verdict::journal
