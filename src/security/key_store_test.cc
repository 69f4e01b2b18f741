#include "security/key_store.h"

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace
}  // namespace verdict::security
