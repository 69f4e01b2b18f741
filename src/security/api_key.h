// API keys: `vk_<id>_<secret>` with a 16-hex-digit id and a 256-bit random secret (64 hex
// digits, OpenSSL RAND_bytes). Only a salted SHA-256 of the secret is ever stored; the key
// itself is shown once, at creation. Stateless functions and value types; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict::security {

struct StoredKey {
  std::string id;         // 16 lower-case hex digits; public (listed, journaled)
  std::string tenant;     // [A-Za-z0-9._-]{1,64}
  std::string principal;  // who the key is for (a person or service); defaults to "key:<id>"
  uint32_t roles = 0;     // Role bits (api/auth_context.h)
  int64_t created_at_us = 0;
  bool revoked = false;
  int64_t revoked_at_us = 0;
  std::string salt_hex;  // 16 random bytes
  std::string hash_hex;  // SHA-256(salt || secret)
};

struct NewKey {
  std::string key;  // the full bearer token, shown once
  StoredKey stored;
};

// A fresh key for the given owner; kInternal only if the random generator fails.
Result<NewKey> GenerateKey(std::string_view tenant, std::string_view principal, uint32_t roles,
                           int64_t now_us);

// Splits a bearer token into id and secret; kUnauthenticated (naming nothing of the token)
// when it is not of the key format.
Status ParseKey(std::string_view key, std::string* id, std::string* secret);

// Constant-time check of `secret` against the stored salted hash.
bool VerifySecret(const StoredKey& stored, std::string_view secret);

// Tenant and principal names: 1..64 of [A-Za-z0-9._-] (tenant), 1..256 printable ASCII
// (principal). kInvalidArgument naming `field` otherwise.
Status ValidateTenant(std::string_view tenant, std::string_view field = "tenant");
Status ValidatePrincipal(std::string_view principal, std::string_view field = "principal");

// The registry encoding (a JSON object) of a stored key, and back.
std::string StoredKeyToJson(const StoredKey& key);
Result<StoredKey> StoredKeyFromJson(std::string_view json);
// What GET /v1/keys and `verdict keys list` show: everything but salt and hash.
std::string StoredKeyPublicJson(const StoredKey& key);

}  // namespace verdict::security
