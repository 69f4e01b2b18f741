#include "security/key_store.h"

#include "common/json_writer.h"

namespace verdict::security {

Result<std::unique_ptr<KeyStore>> KeyStore::Open(KeyStorage& storage, KeyAuditHook audit) {
  std::unique_ptr<KeyStore> store(new KeyStore(storage, std::move(audit)));
  VERDICT_ASSIGN_OR_RETURN(auto entries, storage.List(kPrefix));
  auto snapshot = std::make_shared<Snapshot>();
  for (const auto& [name, value] : entries) {
    Result<StoredKey> key = StoredKeyFromJson(value);
    if (!key.ok()) return Internal("registry entry " + name + ": " + key.status().message());
    std::string id = key->id;
    snapshot->emplace(std::move(id), std::move(key).value());
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
    w.EndArray().EndObject();
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
    recorded =
        audit_(KeyChange{key.tenant, std::string(actor_principal), "keys.revoke", key.id, {}});
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
