#include "security/key_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>

namespace verdict::security {
namespace {

class MemoryStorage final : public KeyStorage {
 public:
  Status Put(std::string_view key, std::string_view value) override {
    if (fail_puts) return Unavailable("storage write failed");
    entries[std::string(key)] = std::string(value);
    return Status::Ok();
  }
  Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const override {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : entries) {
      if (k.starts_with(prefix)) out.emplace_back(k, v);
    }
    return out;
  }
  std::map<std::string, std::string> entries;
  bool fail_puts = false;
};

constexpr uint32_t kScorer = static_cast<uint32_t>(Role::kScorer);
constexpr uint32_t kAdmin = static_cast<uint32_t>(Role::kAdmin);

TEST(KeyStoreTest, CreatedKeyAuthenticatesAndIsStoredOnlyHashed) {
  MemoryStorage storage;
  auto store = KeyStore::Open(storage);
  ASSERT_TRUE(store.ok());
  auto created = (*store)->Create("bank-a", "switch", kScorer, 42, "cli");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_EQ(storage.entries.size(), 1u);
  const std::string& stored = storage.entries.begin()->second;
  const std::string secret = created->key.substr(created->key.rfind('_') + 1);
  EXPECT_EQ(stored.find(secret), std::string::npos);
  auto auth = (*store)->Authenticate("Bearer " + created->key);
  ASSERT_TRUE(auth.ok()) << auth.status().ToString();
  EXPECT_EQ(auth->tenant, "bank-a");
  EXPECT_EQ(auth->principal, "switch");
  EXPECT_TRUE(auth->Has(Role::kScorer));
  EXPECT_FALSE(auth->Has(Role::kAdmin));
}

TEST(KeyStoreTest, RefusesMissingMalformedWrongSecretAndRevoked) {
  MemoryStorage storage;
  auto store = std::move(KeyStore::Open(storage)).value();
  auto created = std::move(store->Create("t1", "", kAdmin, 1, "cli")).value();
  EXPECT_EQ(store->Authenticate("").status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(store->Authenticate("Basic abc").status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(store->Authenticate("Bearer vk_nothex").status().code(), StatusCode::kUnauthenticated);
  std::string wrong = created.key;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_EQ(store->Authenticate("Bearer " + wrong).status().code(), StatusCode::kUnauthenticated);
  // Another tenant cannot revoke it, and learns nothing (404 like an unknown id).
  EXPECT_EQ(store->Revoke(created.stored.id, "t2", 2, "x").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(store->Authenticate("Bearer " + created.key).ok());
  ASSERT_TRUE(store->Revoke(created.stored.id, "t1", 2, "x").ok());
  EXPECT_EQ(store->Authenticate("Bearer " + created.key).status().code(),
            StatusCode::kUnauthenticated);
  // The revocation persisted: a reopened store refuses the key too.
  auto reopened = std::move(KeyStore::Open(storage)).value();
  EXPECT_EQ(reopened->Authenticate("Bearer " + created.key).status().code(),
            StatusCode::kUnauthenticated);
  ASSERT_EQ(reopened->List("t1").size(), 1u);
  EXPECT_TRUE(reopened->List("t1")[0].revoked);
  EXPECT_TRUE(reopened->List("t2").empty());
}

TEST(KeyStoreTest, ValidatesTenantAndRoles) {
  MemoryStorage storage;
  auto store = std::move(KeyStore::Open(storage)).value();
  EXPECT_EQ(store->Create("bad tenant", "", kAdmin, 1, "cli").status().field(), "tenant");
  for (const char* dots : {".", "..", "-a", ".hidden"}) {  // would name odd directories
    EXPECT_EQ(store->Create(dots, "", kAdmin, 1, "cli").status().field(), "tenant") << dots;
  }
  EXPECT_EQ(store->Create("t", "", 0, 1, "cli").status().field(), "roles");
  EXPECT_TRUE(storage.entries.empty());
}

TEST(KeyStoreTest, AuditHookSeesNoSecret) {
  MemoryStorage storage;
  std::vector<KeyChange> changes;
  auto store = std::move(KeyStore::Open(storage, [&](const KeyChange& c) {
                 changes.push_back(c);
                 return Status::Ok();
               })).value();
  auto created = std::move(store->Create("t", "p", kScorer, 1, "admin-1")).value();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].action, "keys.create");
  EXPECT_EQ(changes[0].principal, "admin-1");
  EXPECT_EQ(changes[0].details_json.find(created.key.substr(20)), std::string::npos);
}

// A revocation takes effect before it is recorded: with the journal failed closed the key is
// still refused (it went on working before), and a second revocation records it.
TEST(KeyStoreTest, ARevocationThatCannotBeRecordedStillStopsTheKey) {
  MemoryStorage storage;
  bool journal_ok = true;
  std::vector<std::string> actions;
  auto store = std::move(KeyStore::Open(storage, [&](const KeyChange& c) {
                 if (!journal_ok) return Unavailable("journal failed closed");
                 actions.push_back(c.action);
                 return Status::Ok();
               })).value();
  auto created = std::move(store->Create("t", "p", kScorer, 1, "admin")).value();
  journal_ok = false;
  Result<StoredKey> revoked = store->Revoke(created.stored.id, "t", 2, "admin");
  EXPECT_EQ(revoked.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(store->Authenticate("Bearer " + created.key).status().code(),
            StatusCode::kUnauthenticated);
  // Not stored yet: a restart would bring the key back.
  EXPECT_EQ(storage.entries.begin()->second.find("\"revoked\":true"), std::string::npos);
  journal_ok = true;
  ASSERT_TRUE(store->Revoke(created.stored.id, "t", 3, "admin").ok());
  EXPECT_EQ(actions, (std::vector<std::string>{"keys.create", "keys.revoke"}));
  auto reopened = std::move(KeyStore::Open(storage)).value();
  EXPECT_EQ(reopened->Authenticate("Bearer " + created.key).status().code(),
            StatusCode::kUnauthenticated);
  // Once recorded, revoking again records nothing more.
  ASSERT_TRUE(store->Revoke(created.stored.id, "t", 4, "admin").ok());
  EXPECT_EQ(actions.size(), 2u);

  // Journaled but not stored: the retry stores it without journaling it twice.
  auto second = std::move(store->Create("t", "q", kScorer, 5, "admin")).value();
  storage.fail_puts = true;
  EXPECT_EQ(store->Revoke(second.stored.id, "t", 6, "admin").status().code(),
            StatusCode::kUnavailable);
  storage.fail_puts = false;
  ASSERT_TRUE(store->Revoke(second.stored.id, "t", 7, "admin").ok());
  EXPECT_EQ(std::count(actions.begin(), actions.end(), "keys.revoke"), 2);
}

// The journal's side for KeyStore::Open: every change the audit hook saw, per tenant, newest
// first, as the journal's admin events give them.
struct FakeJournal {
  KeyAuditHook Hook() {
    return [this](const KeyChange& c) {
      std::optional<KeyLedgerEntry> entry = KeyLedgerEntryOf(c.action, c.key_id, c.details_json);
      if (entry) by_tenant[c.tenant].insert(by_tenant[c.tenant].begin(), *entry);
      return Status::Ok();
    };
  }
  KeyLedger Ledger() const {
    return [this](std::string_view tenant) -> Result<std::vector<KeyLedgerEntry>> {
      const auto found = by_tenant.find(std::string(tenant));
      return found == by_tenant.end() ? std::vector<KeyLedgerEntry>{} : found->second;
    };
  }
  std::map<std::string, std::vector<KeyLedgerEntry>> by_tenant;
};

// Replaces `from` with `to` in the one stored key record, as an edit on disk would.
void EditStored(MemoryStorage& storage, const std::string& from, const std::string& to) {
  ASSERT_EQ(storage.entries.size(), 1u);
  std::string& record = storage.entries.begin()->second;
  const size_t at = record.find(from);
  ASSERT_NE(at, std::string::npos) << record;
  record.replace(at, from.size(), to);
}

TEST(KeyStoreTest, StoredKeysThatMatchTheJournalOpen) {
  MemoryStorage storage;
  FakeJournal journal;
  auto store = std::move(KeyStore::Open(storage, journal.Hook(), journal.Ledger())).value();
  auto kept = std::move(store->Create("t", "p", kScorer, 1, "admin")).value();
  auto revoked = std::move(store->Create("u", "q", kAdmin, 2, "admin")).value();
  ASSERT_TRUE(store->Revoke(revoked.stored.id, "u", 3, "admin").ok());
  auto reopened = KeyStore::Open(storage, journal.Hook(), journal.Ledger());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_TRUE((*reopened)->Authenticate("Bearer " + kept.key).ok());
  EXPECT_FALSE((*reopened)->Authenticate("Bearer " + revoked.key).ok());
}

TEST(KeyStoreTest, RolesEditedOnDiskAreRefusedNamingTheKey) {
  MemoryStorage storage;
  FakeJournal journal;
  auto store = std::move(KeyStore::Open(storage, journal.Hook(), journal.Ledger())).value();
  auto created = std::move(store->Create("t", "p", kScorer, 1, "admin")).value();
  EditStored(storage, "\"roles\":[\"scorer\"]", "\"roles\":[\"scorer\",\"admin\"]");
  auto reopened = KeyStore::Open(storage, journal.Hook(), journal.Ledger());
  ASSERT_EQ(reopened.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(reopened.status().message().find(created.stored.id), std::string::npos);
  // Without the journal's check (as before) the edit would have granted admin.
  auto unchecked = std::move(KeyStore::Open(storage)).value();
  EXPECT_TRUE(unchecked->Authenticate("Bearer " + created.key)->Has(Role::kAdmin));
}

// A revocation undone on disk leaves the record as it was before the revocation, which is also
// what a registry write that failed after the journal's would leave: either way the journal's
// revocation holds, and the key stays refused.
TEST(KeyStoreTest, RevocationUndoneOnDiskDoesNotBringTheKeyBack) {
  MemoryStorage storage;
  FakeJournal journal;
  auto store = std::move(KeyStore::Open(storage, journal.Hook(), journal.Ledger())).value();
  auto created = std::move(store->Create("t", "p", kScorer, 1, "admin")).value();
  ASSERT_TRUE(store->Revoke(created.stored.id, "t", 2, "admin").ok());
  EditStored(storage, "\"revoked\":true", "\"revoked\":false");
  auto reopened = KeyStore::Open(storage, journal.Hook(), journal.Ledger());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->Authenticate("Bearer " + created.key).status().code(),
            StatusCode::kUnauthenticated);
  // Undone and edited otherwise too (the time of revocation dropped): no longer a record the
  // journal ever held.
  EditStored(storage, "\"revoked\":true", "\"revoked\":false");
  EditStored(storage, "\"created_at_us\":1", "\"created_at_us\":0");
  EXPECT_EQ(KeyStore::Open(storage, journal.Hook(), journal.Ledger()).status().code(),
            StatusCode::kDataLoss);
}

TEST(KeyStoreTest, KeyAddedOnDiskWithoutTheJournalIsRefused) {
  MemoryStorage storage;
  FakeJournal journal;
  MemoryStorage elsewhere;  // a key made in another data directory, its record copied in
  auto other = std::move(KeyStore::Open(elsewhere)).value();
  ASSERT_TRUE(other->Create("t", "p", kAdmin, 1, "admin").ok());
  storage.entries = elsewhere.entries;
  auto reopened = KeyStore::Open(storage, journal.Hook(), journal.Ledger());
  EXPECT_EQ(reopened.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(reopened.status().message().find("never journaled"), std::string::npos);
}

TEST(KeyStoreTest, KeyStoredUnderAnotherIdIsRefused) {
  MemoryStorage storage;
  auto store = std::move(KeyStore::Open(storage)).value();
  ASSERT_TRUE(store->Create("t", "p", kScorer, 1, "admin").ok());
  auto record = *storage.entries.begin();
  storage.entries.clear();
  storage.entries["keys/0000000000000000"] = record.second;
  EXPECT_EQ(KeyStore::Open(storage).status().code(), StatusCode::kDataLoss);
}

// The journal recorded the revocation, the registry write after it failed: the journal is
// what happened, so the key opens revoked (and is stored so).
TEST(KeyStoreTest, JournaledRevocationTheRegistryMissedIsApplied) {
  MemoryStorage storage;
  FakeJournal journal;
  auto store = std::move(KeyStore::Open(storage, journal.Hook(), journal.Ledger())).value();
  auto created = std::move(store->Create("t", "p", kScorer, 1, "admin")).value();
  storage.fail_puts = true;
  EXPECT_FALSE(store->Revoke(created.stored.id, "t", 2, "admin").ok());
  storage.fail_puts = false;
  auto reopened = KeyStore::Open(storage, journal.Hook(), journal.Ledger());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_FALSE((*reopened)->Authenticate("Bearer " + created.key).ok());
  EXPECT_NE(storage.entries.begin()->second.find("\"revoked\":true"), std::string::npos);
}

// Events journaled before records were hashed carry no digest: such keys still open.
TEST(KeyStoreTest, KeysJournaledWithoutADigestStillOpen) {
  MemoryStorage storage;
  auto store = std::move(KeyStore::Open(storage)).value();
  auto created = std::move(store->Create("t", "p", kScorer, 1, "admin")).value();
  const KeyLedger legacy = [&](std::string_view) -> Result<std::vector<KeyLedgerEntry>> {
    return std::vector<KeyLedgerEntry>{{created.stored.id, "keys.create", "", 0}};
  };
  EXPECT_TRUE(KeyStore::Open(storage, {}, legacy).ok());
}

}  // namespace
}  // namespace verdict::security
