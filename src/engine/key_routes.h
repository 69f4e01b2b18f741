// API-key administration over HTTP (POST /v1/keys, GET /v1/keys, POST /v1/keys/{id}:revoke;
// role admin, own tenant only) and the adapter that keeps keys in the journal's registry.
// The KeyStore and Journal must outlive the router; the adapter is thread-safe like the journal.
#pragma once

#include "api/router.h"
#include "common/clock.h"
#include "journal/journal.h"
#include "security/key_store.h"

namespace verdict {

class JournalKeyStorage final : public security::KeyStorage {
 public:
  explicit JournalKeyStorage(journal::Journal& journal) : journal_(journal) {}
  Status Put(std::string_view key, std::string_view value) override {
    return journal_.PutRegistry(key, value);
  }
  Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const override {
    return journal_.ListRegistry(prefix);
  }

 private:
  journal::Journal& journal_;
};

// The audit hook that journals key changes as admin events (durable before the answer).
security::KeyAuditHook JournalKeyAudit(journal::Journal& journal);
// The key changes the journal holds (its keys.create and keys.revoke admin events), for
// KeyStore::Open to check the stored keys against.
security::KeyLedger JournalKeyLedger(const journal::Journal& journal);

void RegisterKeyRoutes(security::KeyStore& keys, const Clock& clock, Router& router);

}  // namespace verdict
