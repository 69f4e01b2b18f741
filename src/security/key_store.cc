#include "security/key_store.h"

#include <simdjson.h>

#include <set>

#include "common/json_writer.h"
#include "common/sha256.h"

namespace verdict::security {
namespace {

std::string RecordDigest(const StoredKey& key) { return Sha256Hex(StoredKeyToJson(key)); }

Status NotAsJournaled(const StoredKey& key, std::string_view why) {
  return Status(StatusCode::kDataLoss, "API key " + key.id + " of tenant " + key.tenant +
                                           ": the stored record " + std::string(why) +
                                           "; refusing to trust the key store");
}

// Checks each stored key against its journaled changes (newest first); applies a journaled
// revocation that the registry missed.
Status CheckAgainstLedger(std::map<std::string, StoredKey, std::less<>>& keys,
                          const KeyLedger& ledger, const std::vector<std::string>& ledger_tenants,
                          std::vector<StoredKey>* repaired) {
  std::set<std::string> tenants(ledger_tenants.begin(), ledger_tenants.end());
  for (const auto& [id, key] : keys) tenants.insert(key.tenant);
  std::map<std::string, std::vector<KeyLedgerEntry>> changes;  // by key id, newest first
  for (const std::string& tenant : tenants) {
    VERDICT_ASSIGN_OR_RETURN(std::vector<KeyLedgerEntry> entries, ledger(tenant));
    for (KeyLedgerEntry& e : entries) changes[e.key_id].push_back(std::move(e));
  }
  for (auto& [id, key] : keys) {
    const auto found = changes.find(id);
    if (found == changes.end()) return NotAsJournaled(key, "was never journaled");
    const std::vector<KeyLedgerEntry>& history = found->second;
    const KeyLedgerEntry& last = history.front();
    if (last.record_sha256.empty()) continue;  // journaled before records were hashed
    if (RecordDigest(key) == last.record_sha256) continue;
    // The registry write after a journaled revocation failed: the stored record is the one
    // before it, and the journal's revocation is applied.
    if (last.action == "keys.revoke" && !key.revoked && history.size() > 1 &&
        RecordDigest(key) == history[1].record_sha256) {
      StoredKey revoked = key;
      revoked.revoked = true;
      revoked.revoked_at_us = last.revoked_at_us;
      if (RecordDigest(revoked) == last.record_sha256) {
        key = revoked;
        repaired->push_back(revoked);
        continue;
      }
    }
    return NotAsJournaled(key, "does not match its last journaled change (" + last.action + ")");
  }
  // A key the journal created is stored until the end (revoked, never deleted): one missing was
  // deleted from the registry, which would lock its holder out or drop it from the listing.
  for (const auto& [id, history] : changes) {
    if (!keys.contains(id)) {
      return Status(StatusCode::kDataLoss,
                    "API key " + id + " is journaled (" + history.front().action +
                        ") but not stored in the registry; refusing to trust the key store");
    }
  }
  return Status::Ok();
}

}  // namespace

std::optional<KeyLedgerEntry> KeyLedgerEntryOf(std::string_view action, std::string_view key_id,
                                               std::string_view details_json) {
  if (action != "keys.create" && action != "keys.revoke") return std::nullopt;
  KeyLedgerEntry entry{std::string(key_id), std::string(action), {}, 0};
  simdjson::dom::parser parser;
  simdjson::padded_string text(details_json);
  simdjson::dom::object details;
  if (details_json.empty() || parser.parse(text).get_object().get(details) != simdjson::SUCCESS) {
    return entry;
  }
  std::string_view digest;
  if (details["record_sha256"].get_string().get(digest) == simdjson::SUCCESS) {
    entry.record_sha256 = std::string(digest);
  }
  int64_t revoked_at = 0;
  if (details["revoked_at_us"].get_int64().get(revoked_at) == simdjson::SUCCESS) {
    entry.revoked_at_us = revoked_at;
  }
  return entry;
}

Result<std::unique_ptr<KeyStore>> KeyStore::Open(KeyStorage& storage, KeyAuditHook audit,
                                                 const KeyLedger& ledger,
                                                 const std::vector<std::string>& ledger_tenants) {
  std::unique_ptr<KeyStore> store(new KeyStore(storage, std::move(audit)));
  VERDICT_ASSIGN_OR_RETURN(auto entries, storage.List(kPrefix));
  auto snapshot = std::make_shared<Snapshot>();
  for (const auto& [name, value] : entries) {
    Result<StoredKey> key = StoredKeyFromJson(value);
    if (!key.ok()) return Internal("registry entry " + name + ": " + key.status().message());
    if (name != std::string(kPrefix) + key->id) {
      return Status(StatusCode::kDataLoss, "registry entry " + name + " holds key " + key->id);
    }
    std::string id = key->id;
    snapshot->emplace(std::move(id), std::move(key).value());
  }
  if (ledger) {
    std::vector<StoredKey> repaired;
    VERDICT_RETURN_IF_ERROR(CheckAgainstLedger(*snapshot, ledger, ledger_tenants, &repaired));
    MutexLock lock(store->write_mu_);
    for (const StoredKey& key : repaired) VERDICT_RETURN_IF_ERROR(store->Persist(key));
  }
  store->snapshot_.store(std::move(snapshot));
  return store;
}

Status KeyStore::Persist(const StoredKey& key) {
  return storage_.Put(std::string(kPrefix) + key.id, StoredKeyToJson(key));
}

Result<NewKey> KeyStore::Create(std::string_view tenant, std::string_view principal, uint32_t roles,
                                int64_t now_us, std::string_view actor_principal) {
  VERDICT_ASSIGN_OR_RETURN(NewKey created, GenerateKey(tenant, principal, roles, now_us));
  MutexLock lock(write_mu_);
  auto current = snapshot_.load();
  if (current->contains(created.stored.id)) return Internal("key id collision; retry");
  if (audit_) {
    std::string details;
    JsonWriter w(details);
    w.BeginObject().Key("principal").String(created.stored.principal).Key("roles").BeginArray();
    for (Role r : {Role::kScorer, Role::kAnalyst, Role::kAdmin, Role::kAuditor}) {
      if (roles & static_cast<uint32_t>(r)) w.String(RoleName(r));
    }
    w.EndArray().Key("record_sha256").String(RecordDigest(created.stored)).EndObject();
    VERDICT_RETURN_IF_ERROR(audit_(KeyChange{created.stored.tenant, std::string(actor_principal),
                                             "keys.create", created.stored.id, details}));
  }
  VERDICT_RETURN_IF_ERROR(Persist(created.stored));
  auto next = std::make_shared<Snapshot>(*current);
  next->emplace(created.stored.id, created.stored);
  snapshot_.store(std::move(next));
  return created;
}

Result<StoredKey> KeyStore::Revoke(std::string_view id, std::string_view tenant, int64_t now_us,
                                   std::string_view actor_principal) {
  MutexLock lock(write_mu_);
  auto current = snapshot_.load();
  auto it = current->find(id);
  if (it == current->end() || (!tenant.empty() && it->second.tenant != tenant)) {
    return NotFound("no key with id " + std::string(id.substr(0, 64)));
  }
  StoredKey key = it->second;
  const auto unrecorded = unrecorded_revocations_.find(key.id);
  if (key.revoked && unrecorded == unrecorded_revocations_.end()) return key;
  if (!key.revoked) {
    // In force first: a leaked key must stop working even when nothing can be recorded.
    key.revoked = true;
    key.revoked_at_us = now_us;
    auto next = std::make_shared<Snapshot>(*current);
    (*next)[key.id] = key;
    snapshot_.store(std::move(next));
    unrecorded_revocations_.emplace(key.id, false);
  }
  bool& journaled = unrecorded_revocations_.at(key.id);
  Status recorded = Status::Ok();
  if (audit_ && !journaled) {
    std::string details;
    JsonWriter w(details);
    w.BeginObject().Key("revoked_at_us").Int(key.revoked_at_us);
    w.Key("record_sha256").String(RecordDigest(key)).EndObject();
    recorded =
        audit_(KeyChange{key.tenant, std::string(actor_principal), "keys.revoke", key.id, details});
    journaled = recorded.ok();
  }
  if (recorded.ok()) recorded = Persist(key);
  if (!recorded.ok()) {
    return Unavailable("key " + key.id +
                       " is refused from now on, but its revocation could not be recorded (" +
                       recorded.message() + "); revoke it again, or a restart brings it back");
  }
  unrecorded_revocations_.erase(key.id);
  return key;
}

std::vector<StoredKey> KeyStore::List(std::string_view tenant) const {
  std::vector<StoredKey> out;
  for (const auto& [id, key] : *snapshot_.load()) {
    if (tenant.empty() || key.tenant == tenant) out.push_back(key);
  }
  return out;
}

Result<AuthContext> KeyStore::Authenticate(std::string_view authorization_header) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization_header.empty()) {
    return Status(StatusCode::kUnauthenticated,
                  "this route needs an API key: Authorization: Bearer <key>");
  }
  if (authorization_header.size() <= kBearer.size() || !authorization_header.starts_with(kBearer)) {
    return Status(StatusCode::kUnauthenticated, "the Authorization header must be Bearer <key>");
  }
  std::string id, secret;
  VERDICT_RETURN_IF_ERROR(ParseKey(authorization_header.substr(kBearer.size()), &id, &secret));
  const Status refused(StatusCode::kUnauthenticated, "the API key is unknown or revoked");
  auto snapshot = snapshot_.load();
  auto it = snapshot->find(id);
  if (it == snapshot->end()) return refused;
  // Verify before looking at the revoked flag, so both paths take the same time.
  const bool matches = VerifySecret(it->second, secret);
  if (!matches || it->second.revoked) return refused;
  AuthContext context;
  context.authenticated = true;
  context.tenant = it->second.tenant;
  context.principal = it->second.principal;
  context.roles = it->second.roles;
  return context;
}

}  // namespace verdict::security
