// The API keys kept in the journal's registry, checked at open against the key changes the
// journal's chain holds (JournalKeyLedger): an edit of the registry that would grant a role is
// refused, naming the key.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/key_routes.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using journal::testing_util::OpenOrDie;
using journal::testing_util::TempDir;

constexpr uint32_t kScorer = static_cast<uint32_t>(Role::kScorer);

TEST(KeyLedgerTest, RegistryEditThatGrantsARoleIsRefusedAtOpen) {
  TempDir dir;
  journal::JournalOptions options;
  options.data_dir = dir.path();
  std::unique_ptr<journal::Journal> j = OpenOrDie(options);
  ASSERT_NE(j, nullptr);
  JournalKeyStorage storage(*j);
  auto store = security::KeyStore::Open(storage, JournalKeyAudit(*j), JournalKeyLedger(*j));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto scorer = (*store)->Create("bank-a", "switch", kScorer, 1, "admin");
  auto revoked = (*store)->Create("bank-a", "old", kScorer, 2, "admin");
  ASSERT_TRUE(scorer.ok() && revoked.ok());
  ASSERT_TRUE((*store)->Revoke(revoked->stored.id, "bank-a", 3, "admin").ok());
  store->reset();

  // As stored and journaled: the keys open as they were.
  auto reopened = security::KeyStore::Open(storage, JournalKeyAudit(*j), JournalKeyLedger(*j));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_TRUE((*reopened)->Authenticate("Bearer " + scorer->key).ok());
  EXPECT_FALSE((*reopened)->Authenticate("Bearer " + revoked->key).ok());

  // The scorer key's record raised to admin behind the journal's back.
  const std::string name = "keys/" + scorer->stored.id;
  auto record = j->GetRegistry(name);
  ASSERT_TRUE(record.ok() && record->has_value());
  std::string edited = **record;
  const size_t at = edited.find("[\"scorer\"]");
  ASSERT_NE(at, std::string::npos) << edited;
  edited.replace(at, 10, "[\"scorer\",\"admin\"]");
  ASSERT_TRUE(j->PutRegistry(name, edited).ok());
  auto refused = security::KeyStore::Open(storage, JournalKeyAudit(*j), JournalKeyLedger(*j));
  ASSERT_EQ(refused.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(refused.status().message().find(scorer->stored.id), std::string::npos)
      << refused.status().ToString();
}

// A key deleted from the registry would lock its holder out (or a revoked one drop out of the
// listing) with nothing noticed: every key the journal names must be stored, of every tenant
// the journal has, even once a tenant's keys are all gone.
TEST(KeyLedgerTest, KeysDeletedFromTheRegistryAreRefusedAtOpen) {
  for (const bool delete_every_key_of_the_tenant : {false, true}) {
    TempDir dir;
    journal::JournalOptions options;
    options.data_dir = dir.path();
    std::unique_ptr<journal::Journal> j = OpenOrDie(options);
    ASSERT_NE(j, nullptr);
    JournalKeyStorage storage(*j);
    auto store = security::KeyStore::Open(storage, JournalKeyAudit(*j), JournalKeyLedger(*j));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto kept = (*store)->Create("bank-a", "switch", kScorer, 1, "admin");
    auto deleted = (*store)->Create("bank-b", "switch", kScorer, 2, "admin");
    auto other = (*store)->Create("bank-b", "batch", kScorer, 3, "admin");
    ASSERT_TRUE(kept.ok() && deleted.ok() && other.ok());
    store->reset();

    ASSERT_TRUE(j->DeleteRegistry("keys/" + deleted->stored.id).ok());
    if (delete_every_key_of_the_tenant) {
      ASSERT_TRUE(j->DeleteRegistry("keys/" + other->stored.id).ok());
    }
    Result<std::vector<std::string>> tenants = j->AdminTenants();
    ASSERT_TRUE(tenants.ok()) << tenants.status().ToString();
    EXPECT_EQ(*tenants, (std::vector<std::string>{"bank-a", "bank-b"}));
    auto refused = security::KeyStore::Open(storage, JournalKeyAudit(*j), JournalKeyLedger(*j),
                                            *tenants);
    ASSERT_EQ(refused.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(refused.status().message().find("not stored"), std::string::npos)
        << refused.status().ToString();
  }
}

}  // namespace
}  // namespace verdict
