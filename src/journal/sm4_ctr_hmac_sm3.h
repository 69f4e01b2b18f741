// SM4-CTR with HMAC-SM3, encrypt-then-MAC: the journal's second payload cipher, for deployments
// held to the Chinese commercial algorithms (GM/T 0002 SM4, GM/T 0004 SM3). Debian 12's
// OpenSSL 3.0 has SM4-CTR and SM3 but no SM4-GCM, hence the generic composition. The MAC covers
// the associated data, the IV and the ciphertext, and is checked in constant time before
// anything is decrypted. Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict::journal {

inline constexpr size_t kSm4KeyBytes = 16;
inline constexpr size_t kSm4IvBytes = 16;
inline constexpr size_t kSm3MacKeyBytes = 32;
inline constexpr size_t kSm3MacBytes = 32;

// The two keys one data key yields: never the same key for encryption and authentication.
struct Sm4CtrHmacSm3Keys {
  std::string encryption;      // kSm4KeyBytes
  std::string authentication;  // kSm3MacKeyBytes
};

// HKDF (RFC 5869) with SM3, no salt, info "verdict-journal-sm4-ctr-hmac-sm3-v1": 48 bytes, the
// first 16 the SM4 key and the other 32 the HMAC-SM3 key.
Result<Sm4CtrHmacSm3Keys> DeriveSm4CtrHmacSm3Keys(std::string_view data_key);

// SM4 in counter mode: the IV is the whole first 128-bit counter block. Its own inverse.
Result<std::string> Sm4Ctr(std::string_view key, std::string_view iv, std::string_view input);
// HMAC-SM3 over the concatenation of `first` and `second`.
Result<std::string> HmacSm3(std::string_view key, std::string_view first, std::string_view second);

// iv[16] || ciphertext || HMAC-SM3(authentication key, u32 len(aad) || aad || iv || ciphertext).
// The IV is random (a fresh one per call).
Result<std::string> Sm4CtrHmacSm3Seal(const Sm4CtrHmacSm3Keys& keys, std::string_view aad,
                                      std::string_view plaintext);
// The plaintext of Seal's output; InvalidArgument when it is too short or its MAC does not
// match (a wrong key or any altered byte of the associated data, IV, ciphertext or MAC).
Result<std::string> Sm4CtrHmacSm3Open(const Sm4CtrHmacSm3Keys& keys, std::string_view aad,
                                      std::string_view sealed);

}  // namespace verdict::journal
