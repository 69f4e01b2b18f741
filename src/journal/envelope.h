// Envelope encryption of record payloads at rest: AES-256-GCM under a data key (DEK); each DEK
// is stored wrapped (AES-256-GCM) by the key-encryption key (KEK) read from a file
// (docs/journal_format.md §4). Thread-safe: a shared mutex guards the key table.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "common/result.h"

namespace verdict::journal {

inline constexpr size_t kKekBytes = 32;

class PayloadCipher {
 public:
  static Result<std::unique_ptr<PayloadCipher>> Create(std::string_view kek);
  // Reads a 32-byte, 0600 KEK file.
  static Result<std::unique_ptr<PayloadCipher>> FromKekFile(const std::string& path);

  // Generates a random DEK with this id, makes it the one Encrypt uses, and returns its
  // wrapped form for the caller to persist before using it.
  Result<std::string> NewDataKey(uint32_t id) EXCLUDES(mu_);
  // Unwraps a persisted DEK so records under it can be decrypted; fails on a wrong KEK.
  Status AddWrappedKey(uint32_t id, std::string_view wrapped) EXCLUDES(mu_);

  // dek_id u32 BE | nonce[12] | ciphertext | tag[16]; the nonce is 0x00000000 || seq BE, unique
  // per DEK because sequence numbers never repeat and every open makes a new DEK.
  Result<std::string> Encrypt(uint64_t seq, std::string_view plaintext) const EXCLUDES(mu_);
  Result<std::string> Decrypt(uint64_t seq, std::string_view envelope) const EXCLUDES(mu_);

 private:
  explicit PayloadCipher(std::string kek) : kek_(std::move(kek)) {}

  const std::string kek_;
  mutable SharedMutex mu_;
  std::map<uint32_t, std::string> deks_ GUARDED_BY(mu_);
  uint32_t active_id_ GUARDED_BY(mu_) = 0;
  bool has_active_ GUARDED_BY(mu_) = false;
};

}  // namespace verdict::journal
