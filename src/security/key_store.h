// KeyStore: the API keys of a deployment, persisted under "keys/<id>" in a KeyStorage (the
// journal's registry column family) with an immutable in-memory snapshot for lookups, swapped
// atomically on every change so that a revocation takes effect for the very next request.
// Thread-safe: Authenticate is lock-free on the snapshot; changes serialize on a mutex.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/authenticator.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "security/api_key.h"

namespace verdict::security {

// Where keys live; the engine and `verdict keys` adapt the journal's registry to it.
class KeyStorage {
 public:
  virtual ~KeyStorage() = default;
  virtual Status Put(std::string_view key, std::string_view value) = 0;
  virtual Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const = 0;
};

// Who changed a key (journaled as an admin event by the caller-supplied hook).
struct KeyChange {
  std::string tenant;
  std::string principal;
  std::string action;  // "keys.create" or "keys.revoke"
  std::string key_id;
  std::string details_json;  // never the key or its hash (a digest of the whole record is
                             // fine: it gives away neither)
};
using KeyAuditHook = std::function<Status(const KeyChange&)>;

// One key change as the journal recorded it: each carries the SHA-256 (hex) of the key's
// registry record as stored after the change, so that a record edited on disk (roles raised,
// a revocation undone, a key added) no longer matches the tamper-evident chain.
struct KeyLedgerEntry {
  std::string key_id;
  std::string action;         // "keys.create" or "keys.revoke"
  std::string record_sha256;  // empty in events journaled before records were hashed
  int64_t revoked_at_us = 0;  // keys.revoke: the revocation's time
};
// A tenant's key changes, newest first (the journal's admin events of that tenant).
using KeyLedger = std::function<Result<std::vector<KeyLedgerEntry>>(std::string_view tenant)>;
// The ledger entry of a journaled key change (its action, object and details as KeyStore wrote
// them); nullopt for an action that is not a key change.
std::optional<KeyLedgerEntry> KeyLedgerEntryOf(std::string_view action, std::string_view key_id,
                                               std::string_view details_json);

class KeyStore final : public Authenticator {
 public:
  static constexpr std::string_view kPrefix = "keys/";

  // Loads every stored key. `storage` must outlive the store; `audit` may be empty. With a
  // `ledger`, every stored key must match its last journaled change, and every key the ledger
  // of its tenant or of `ledger_tenants` (the journal's tenants) names must be stored: kDataLoss
  // naming the key otherwise (nothing is loaded). A key whose revocation was journaled but not
  // stored (the registry write failed after the journal's) is loaded revoked, as the journal says.
  static Result<std::unique_ptr<KeyStore>> Open(
      KeyStorage& storage, KeyAuditHook audit = {}, const KeyLedger& ledger = {},
      const std::vector<std::string>& ledger_tenants = {});

  // Creates and persists a key; the returned NewKey::key is the only copy of the secret.
  // `actor_*` say who asked (journaled).
  Result<NewKey> Create(std::string_view tenant, std::string_view principal, uint32_t roles,
                        int64_t now_us, std::string_view actor_principal) EXCLUDES(write_mu_);
  // Revokes the key `id`. When `tenant` is non-empty the key must belong to it: a key of another
  // tenant is kNotFound, exactly like one that does not exist. The key stops working at once,
  // before the revocation is journaled and stored: should either fail (the journal failed
  // closed, say), the answer is kUnavailable, the key stays refused in this process, and
  // revoking it again records it then (until it is recorded, a restart brings it back).
  Result<StoredKey> Revoke(std::string_view id, std::string_view tenant, int64_t now_us,
                           std::string_view actor_principal) EXCLUDES(write_mu_);
  // Keys of `tenant` (all tenants when empty), by id.
  std::vector<StoredKey> List(std::string_view tenant) const;
  size_t size() const { return snapshot_.load()->size(); }

  // Bearer <key> → tenant, principal ("key:<id>" unless the key names one) and roles.
  Result<AuthContext> Authenticate(std::string_view authorization_header) const override;

 private:
  using Snapshot = std::map<std::string, StoredKey, std::less<>>;
  KeyStore(KeyStorage& storage, KeyAuditHook audit) : storage_(storage), audit_(std::move(audit)) {}
  // Stores the key; under write_mu_, so that the storage sees changes in their order.
  Status Persist(const StoredKey& key) REQUIRES(write_mu_);

  KeyStorage& storage_;
  KeyAuditHook audit_;
  // Serializes changes; held while the audit hook journals and the storage writes.
  Mutex write_mu_;
  // Not GUARDED_BY: Authenticate loads it without the lock; write_mu_ orders the writers.
  std::atomic<std::shared_ptr<const Snapshot>> snapshot_;
  // Revocations in force but not yet stored, and whether each was journaled already (a retry
  // then only stores it, journaling it once).
  std::map<std::string, bool, std::less<>> unrecorded_revocations_ GUARDED_BY(write_mu_);
};

}  // namespace verdict::security
