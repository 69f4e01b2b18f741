// Account states sealed at rest: the head's digest follows every group's state writes (erases
// and rewrites in one group, across restarts), and a state edited, deleted, added, copied over
// another's or rolled back in the store is refused at open, naming the states.
#include "journal/state_seal.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <future>

#include "journal/head.h"
#include "journal/journal.h"
#include "journal/store.h"
#include "journal/test_util.h"
#include "journal/verifier.h"

namespace verdict::journal {
namespace state_seal_tests {

using testing_util::MakeEntry;
using testing_util::StateErase;
using testing_util::StateWrite;
using testing_util::TempDir;
using testing_util::WriteEntries;

TEST(StateSealerTest, TagsDependOnKeyValueAndSecret) {
  const StateSealer a(std::string(32, 'a'));
  const StateSealer b(std::string(32, 'b'));
  EXPECT_EQ(a.Tag("k", "v"), a.Tag("k", "v"));
  EXPECT_NE(a.Tag("k", "v"), b.Tag("k", "v"));
  EXPECT_NE(a.Tag("k", "v"), a.Tag("k", "w"));
  EXPECT_NE(a.Tag("k1", "v"), a.Tag("k", "1v"));  // the key's length is in the message
  EXPECT_NE(a.Tag("k", "v"), StateTag{});
}

TEST(StateDigestTest, AddingAndSubtractingIsOrderFreeAndEncodes) {
  const StateSealer s(std::string(32, 's'));
  StateDigest one;
  one.Add(s.Tag("a", "1"));
  one.Add(s.Tag("b", "2"));
  StateDigest other;
  other.Add(s.Tag("b", "2"));
  other.Add(s.Tag("c", "3"));
  other.Add(s.Tag("a", "1"));
  other.Subtract(s.Tag("c", "3"));
  EXPECT_TRUE(one == other);
  other.Subtract(s.Tag("a", "1"));
  EXPECT_FALSE(one == other);
  std::optional<StateDigest> decoded = StateDigest::Decode(one.Encode());
  ASSERT_TRUE(decoded);
  EXPECT_TRUE(*decoded == one);
  EXPECT_FALSE(StateDigest::Decode("short"));
  // Carries across the halves: a tag of all ones added twice and subtracted twice.
  StateTag ones;
  ones.fill(0xff);
  StateDigest carry = one;
  carry.Add(ones);
  carry.Add(ones);
  carry.Subtract(ones);
  carry.Subtract(ones);
  EXPECT_TRUE(carry == one);
}

TEST(JournalHeadTest, SealedAndOlderHeadsRoundTrip) {
  JournalHead head;
  head.last_seq = 0;
  EXPECT_EQ(EncodeHead(head).substr(0, 4), "VJH1");
  head.state_digest = StateDigest();
  head.state_digest->Add(StateSealer(std::string(32, 'x')).Tag("k", "v"));
  const std::string bytes = EncodeHead(head);
  EXPECT_EQ(bytes.substr(0, 4), "VJH2");
  Result<JournalHead> decoded = DecodeHead(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_TRUE(decoded->state_digest);
  EXPECT_TRUE(*decoded->state_digest == *head.state_digest);
  EXPECT_FALSE(DecodeHead(bytes.substr(0, 30)).ok());
}

class JournalStateSealTest : public ::testing::Test {
 protected:
  JournalOptions Options() const {
    JournalOptions o;
    o.data_dir = dir_.Sub("data");
    o.verify_in_background = false;
    return o;
  }
  std::unique_ptr<Journal> Open(JournalOptions o) {
    Result<std::unique_ptr<Journal>> j = Journal::Open(std::move(o));
    EXPECT_TRUE(j.ok()) << j.status().ToString();
    return j.ok() ? std::move(j).value() : nullptr;
  }
  void Write(Journal& j, uint64_t first, uint64_t last) {
    for (const Result<CommitInfo>& r : WriteEntries(j, first, last)) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }
  void Enqueue(Journal& j, JournalEntry entry) {
    std::promise<Result<CommitInfo>> done;
    ASSERT_TRUE(j.Enqueue(std::move(entry), [&done](const Result<CommitInfo>& r) {
                   done.set_value(r);
                 }).ok());
    Result<CommitInfo> r = done.get_future().get();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // Edits the store as someone with the files could, between runs.
  void EditStore(const std::function<void(JournalStore&, rocksdb::WriteBatch&)>& edit) {
    StoreOptions so;
    so.data_dir = dir_.Sub("data");
    so.create_if_missing = false;
    Result<std::unique_ptr<JournalStore>> store = JournalStore::Open(so);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    rocksdb::WriteBatch batch;
    edit(**store, batch);
    ASSERT_TRUE((*store)->Write(batch, /*sync=*/true).ok());
  }
  std::string State(std::string_view key) {
    std::string value;
    EditStore([&](JournalStore& store, rocksdb::WriteBatch&) {
      Result<std::optional<std::string>> v = store.Get(Cf::kState, key);
      ASSERT_TRUE(v.ok() && v->has_value());
      value = **v;
    });
    return value;
  }
  // The open refused for the states, and opened failed closed with the damage named when asked.
  void ExpectStatesRefused() {
    VerifyOptions verify;
    verify.data_dir = dir_.Sub("data");
    Result<VerifyReport> report = Verify(verify);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_FALSE(report->ok);
    EXPECT_NE(report->problem.find("account states"), std::string::npos) << report->problem;
    Result<std::unique_ptr<Journal>> refused = Journal::Open(Options());
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(refused.status().message().find("account states"), std::string::npos)
        << refused.status().ToString();
    JournalOptions o = Options();
    o.open_damaged = true;
    std::unique_ptr<Journal> damaged = Open(o);
    ASSERT_NE(damaged, nullptr);
    EXPECT_EQ(damaged->integrity().state, IntegrityState::kDamaged);
    EXPECT_NE(damaged->integrity().detail.find("account states"), std::string::npos);
  }

  TempDir dir_;
};

TEST_F(JournalStateSealTest, WritesErasesAndRestartsKeepTheDigest) {
  {
    std::unique_ptr<Journal> j = Open(Options());
    ASSERT_NE(j, nullptr);
    ASSERT_NE(j->state_sealer(), nullptr);
    Write(*j, 1, 20);
    // One group erases a state written before it, and writes, rewrites and erases others.
    JournalEntry entry = MakeEntry(21);
    const std::string stored_before = entry.state_updates[0].key;
    entry.state_updates = {StateWrite("bank-a/k1", "v1"),    StateErase("bank-a/k1"),
                           StateWrite("bank-a/k3", "first"), StateWrite("bank-a/k3", "second"),
                           StateErase("bank-a/k4"),          StateWrite("bank-a/k4", "written"),
                           StateErase(stored_before)};
    Enqueue(*j, std::move(entry));
  }
  for (uint64_t run = 0; run < 3; ++run) {
    std::unique_ptr<Journal> j = Open(Options());
    ASSERT_NE(j, nullptr);
    EXPECT_TRUE(j->healthy());
    Write(*j, 22 + run * 10, 31 + run * 10);
  }
  VerifyOptions verify;
  verify.data_dir = dir_.Sub("data");
  Result<VerifyReport> report = Verify(verify);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok) << report->problem;
  Result<std::optional<JournalHead>> head = [&] {
    Result<std::optional<JournalHead>> out = std::optional<JournalHead>();
    EditStore([&](JournalStore& store, rocksdb::WriteBatch&) { out = ReadStoredHead(store); });
    return out;
  }();
  ASSERT_TRUE(head.ok() && head->has_value());
  EXPECT_TRUE((*head)->state_digest.has_value());
}

TEST_F(JournalStateSealTest, TheEnginesOwnSealsKeepTheDigest) {
  // A caller that keeps each state's seal tells the replaced tag itself (replaced_known).
  StateTag k1_seal{};
  {
    std::unique_ptr<Journal> j = Open(Options());
    ASSERT_NE(j, nullptr);
    for (uint64_t i = 1; i <= 5; ++i) {
      JournalEntry entry = MakeEntry(i);
      StateUpdate u = StateWrite("bank-a/k1", "value-" + std::to_string(i));
      u.replaced_known = true;
      if (k1_seal != StateTag{}) u.replaced_tag = k1_seal;
      u.tag = j->state_sealer()->Tag(u.key, u.value);
      k1_seal = u.tag;
      entry.state_updates = {u};
      Enqueue(*j, std::move(entry));
    }
  }
  std::unique_ptr<Journal> j = Open(Options());
  ASSERT_NE(j, nullptr);
  EXPECT_TRUE(j->healthy());
}

TEST_F(JournalStateSealTest, AnEditedStateIsRefused) {
  { Write(*Open(Options()), 1, 10); }
  EditStore([](JournalStore& store, rocksdb::WriteBatch& batch) {
    ASSERT_TRUE(batch.Put(store.handle(Cf::kState), "bank-a/ACC-1", "edited").ok());
  });
  ExpectStatesRefused();
}

TEST_F(JournalStateSealTest, ADeletedStateIsRefused) {
  { Write(*Open(Options()), 1, 10); }
  EditStore([](JournalStore& store, rocksdb::WriteBatch& batch) {
    ASSERT_TRUE(batch.Delete(store.handle(Cf::kState), "bank-a/ACC-1").ok());
  });
  ExpectStatesRefused();
}

TEST_F(JournalStateSealTest, AnAddedStateIsRefused) {
  { Write(*Open(Options()), 1, 10); }
  EditStore([](JournalStore& store, rocksdb::WriteBatch& batch) {
    ASSERT_TRUE(batch.Put(store.handle(Cf::kState), "bank-a/NEW", "state-after-3").ok());
  });
  ExpectStatesRefused();
}

TEST_F(JournalStateSealTest, AStateCopiedOverAnothersIsRefused) {
  { Write(*Open(Options()), 1, 10); }
  const std::string other = State("bank-a/ACC-2");
  EditStore([&](JournalStore& store, rocksdb::WriteBatch& batch) {
    ASSERT_TRUE(batch.Put(store.handle(Cf::kState), "bank-a/ACC-1", other).ok());
  });
  ExpectStatesRefused();
}

TEST_F(JournalStateSealTest, AStateRolledBackIsRefused) {
  for (uint64_t i = 1; i <= 2; ++i) {
    std::unique_ptr<Journal> j = Open(Options());
    ASSERT_NE(j, nullptr);
    JournalEntry entry = MakeEntry(i);
    entry.state_updates = {StateWrite("bank-a/k1", "value-" + std::to_string(i))};
    Enqueue(*j, std::move(entry));
  }
  ASSERT_EQ(State("bank-a/k1"), "value-2");
  EditStore([&](JournalStore& store, rocksdb::WriteBatch& batch) {
    ASSERT_TRUE(batch.Put(store.handle(Cf::kState), "bank-a/k1", "value-1").ok());
  });
  ExpectStatesRefused();
}

TEST_F(JournalStateSealTest, ASealedHeadWithoutItsKeyIsRefused) {
  { Write(*Open(Options()), 1, 10); }
  std::filesystem::remove(dir_.Sub("data") + "/" + std::string(kStateSealKeyFile));
  ExpectStatesRefused();
}

TEST_F(JournalStateSealTest, StatesStoredBeforeSealingAreSealedFromTheNextGroup) {
  { Write(*Open(Options()), 1, 10); }
  // The head as an older version wrote it: no digest, and no key yet.
  EditStore([](JournalStore& store, rocksdb::WriteBatch& batch) {
    Result<std::optional<JournalHead>> head = ReadStoredHead(store);
    ASSERT_TRUE(head.ok() && head->has_value());
    (*head)->state_digest.reset();
    ASSERT_TRUE(batch.Put(store.handle(Cf::kMeta), kMetaHeadKey, EncodeHead(**head)).ok());
  });
  std::filesystem::remove(dir_.Sub("data") + "/" + std::string(kStateSealKeyFile));
  { Write(*Open(Options()), 11, 12); }
  EditStore([](JournalStore& store, rocksdb::WriteBatch& batch) {
    ASSERT_TRUE(batch.Put(store.handle(Cf::kState), "bank-a/ACC-1", "edited").ok());
  });
  ExpectStatesRefused();
}

}  // namespace state_seal_tests
}  // namespace verdict::journal
