#include "security/api_key.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <simdjson.h>

#include <array>
#include <cctype>

#include "api/auth_context.h"
#include "common/json_writer.h"
#include "common/sha256.h"

namespace verdict::security {
namespace {

constexpr size_t kIdBytes = 8;
constexpr size_t kSecretBytes = 32;
constexpr size_t kSaltBytes = 16;
constexpr std::string_view kPrefix = "vk_";

std::string Hex(const unsigned char* data, size_t n) {
  return HexOf(std::string_view(reinterpret_cast<const char*>(data), n));
}

bool IsLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<std::string> RandomHex(size_t bytes) {
  std::array<unsigned char, 64> buffer{};
  if (RAND_bytes(buffer.data(), static_cast<int>(bytes)) != 1) {
    return Internal("the random number generator failed");
  }
  std::string out = Hex(buffer.data(), bytes);
  OPENSSL_cleanse(buffer.data(), buffer.size());
  return out;
}

std::string SaltedHash(std::string_view salt_hex, std::string_view secret) {
  Sha256Digest digest = Sha256Of(salt_hex, secret);
  return Hex(digest.data(), digest.size());
}

}  // namespace

Status ValidateTenant(std::string_view tenant, std::string_view field) {
  bool ok = !tenant.empty() && tenant.size() <= 64;
  for (char c : tenant) {
    ok &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-';
  }
  // A tenant names directories (tenant-models/<tenant>/): "." and ".." must not be names, so
  // the first character is a letter or digit.
  ok &= !tenant.empty() && std::isalnum(static_cast<unsigned char>(tenant.front()));
  if (!ok) {
    return InvalidArgument(std::string(field) +
                               " must be 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or "
                               "digit",
                           std::string(field));
  }
  return Status::Ok();
}

Status ValidatePrincipal(std::string_view principal, std::string_view field) {
  bool ok = !principal.empty() && principal.size() <= 256;
  for (char c : principal) ok &= c >= 0x20 && c < 0x7f;
  if (!ok) {
    return InvalidArgument(std::string(field) + " must be 1 to 256 printable ASCII characters",
                           std::string(field));
  }
  return Status::Ok();
}

Result<NewKey> GenerateKey(std::string_view tenant, std::string_view principal, uint32_t roles,
                           int64_t now_us) {
  VERDICT_RETURN_IF_ERROR(ValidateTenant(tenant));
  NewKey out;
  VERDICT_ASSIGN_OR_RETURN(out.stored.id, RandomHex(kIdBytes));
  VERDICT_ASSIGN_OR_RETURN(std::string secret, RandomHex(kSecretBytes));
  VERDICT_ASSIGN_OR_RETURN(out.stored.salt_hex, RandomHex(kSaltBytes));
  out.stored.tenant = std::string(tenant);
  out.stored.principal = principal.empty() ? "key:" + out.stored.id : std::string(principal);
  VERDICT_RETURN_IF_ERROR(ValidatePrincipal(out.stored.principal));
  if (roles == 0) return InvalidArgument("a key needs at least one role", "roles");
  out.stored.roles = roles;
  out.stored.created_at_us = now_us;
  out.stored.hash_hex = SaltedHash(out.stored.salt_hex, secret);
  out.key = std::string(kPrefix) + out.stored.id + "_" + secret;
  OPENSSL_cleanse(secret.data(), secret.size());
  return out;
}

Status ParseKey(std::string_view key, std::string* id, std::string* secret) {
  const Status bad(StatusCode::kUnauthenticated, "the bearer token is not a verdict API key");
  if (key.size() != kPrefix.size() + kIdBytes * 2 + 1 + kSecretBytes * 2) return bad;
  if (!key.starts_with(kPrefix)) return bad;
  std::string_view rest = key.substr(kPrefix.size());
  std::string_view id_part = rest.substr(0, kIdBytes * 2);
  if (rest[kIdBytes * 2] != '_') return bad;
  std::string_view secret_part = rest.substr(kIdBytes * 2 + 1);
  if (!IsLowerHex(id_part) || !IsLowerHex(secret_part)) return bad;
  *id = std::string(id_part);
  *secret = std::string(secret_part);
  return Status::Ok();
}

bool VerifySecret(const StoredKey& stored, std::string_view secret) {
  const std::string computed = SaltedHash(stored.salt_hex, secret);
  return computed.size() == stored.hash_hex.size() &&
         CRYPTO_memcmp(computed.data(), stored.hash_hex.data(), computed.size()) == 0;
}

namespace {

void WriteRoles(uint32_t roles, JsonWriter& w) {
  w.BeginArray();
  for (Role r : {Role::kScorer, Role::kAnalyst, Role::kAdmin, Role::kAuditor}) {
    if (roles & static_cast<uint32_t>(r)) w.String(RoleName(r));
  }
  w.EndArray();
}

void WritePublic(const StoredKey& key, JsonWriter& w) {
  w.Key("id").String(key.id).Key("tenant").String(key.tenant);
  w.Key("principal").String(key.principal).Key("roles");
  WriteRoles(key.roles, w);
  w.Key("created_at_us").Int(key.created_at_us).Key("revoked").Bool(key.revoked);
  if (key.revoked) w.Key("revoked_at_us").Int(key.revoked_at_us);
}

}  // namespace

std::string StoredKeyToJson(const StoredKey& key) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  WritePublic(key, w);
  w.Key("salt").String(key.salt_hex).Key("sha256").String(key.hash_hex);
  w.EndObject();
  return out;
}

std::string StoredKeyPublicJson(const StoredKey& key) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  WritePublic(key, w);
  w.EndObject();
  return out;
}

Result<StoredKey> StoredKeyFromJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(json);
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) {
    return Internal("stored key is not a JSON object");
  }
  StoredKey key;
  std::string_view s;
  auto str = [&](const char* name, std::string* out) -> Status {
    if (obj[name].get_string().get(s) != simdjson::SUCCESS) {
      return Internal(std::string("stored key lacks ") + name);
    }
    *out = std::string(s);
    return Status::Ok();
  };
  VERDICT_RETURN_IF_ERROR(str("id", &key.id));
  VERDICT_RETURN_IF_ERROR(str("tenant", &key.tenant));
  VERDICT_RETURN_IF_ERROR(str("principal", &key.principal));
  VERDICT_RETURN_IF_ERROR(str("salt", &key.salt_hex));
  VERDICT_RETURN_IF_ERROR(str("sha256", &key.hash_hex));
  simdjson::dom::array roles;
  if (obj["roles"].get_array().get(roles) != simdjson::SUCCESS) {
    return Internal("stored key lacks roles");
  }
  for (auto role : roles) {
    Role r;
    if (role.get_string().get(s) != simdjson::SUCCESS || !ParseRole(s, &r)) {
      return Internal("stored key has an unknown role");
    }
    key.roles |= static_cast<uint32_t>(r);
  }
  int64_t n = 0;
  if (obj["created_at_us"].get_int64().get(n) == simdjson::SUCCESS) key.created_at_us = n;
  bool revoked = false;
  if (obj["revoked"].get_bool().get(revoked) == simdjson::SUCCESS) key.revoked = revoked;
  if (obj["revoked_at_us"].get_int64().get(n) == simdjson::SUCCESS) key.revoked_at_us = n;
  return key;
}

}  // namespace verdict::security
