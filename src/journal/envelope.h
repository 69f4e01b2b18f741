// Envelope encryption of record payloads at rest under a data key (DEK), with one of two ciphers:
// AES-256-GCM (the default) or SM4-CTR with HMAC-SM3 (sm4_ctr_hmac_sm3.h). Each DEK is stored
// wrapped (AES-256-GCM) by the key-encryption key (KEK) read from a file (docs/journal_format.md
// §4). Key id 0, never a DEK, is the index key: the key of the keyed hashes that stand for
// account numbers and transaction ids in the index keys (index_keys.h). Thread-safe: a shared
// mutex guards the key table.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "common/result.h"
#include "journal/index_id_hash.h"
#include "journal/sm4_ctr_hmac_sm3.h"

namespace verdict::journal {

inline constexpr size_t kKekBytes = 32;
// The wrapped key stored under this id is the index key, not a data key (data keys count from 1).
inline constexpr uint32_t kIndexKeyId = 0;

// Which cipher Encrypt uses; Decrypt reads it from each record (both can coexist in a journal).
// The values are the cipher ids in the stored form: 0 is where the AES-256-GCM format has always
// had the four zero bytes its nonce begins with.
enum class PayloadCipherKind : uint32_t {
  kAes256Gcm = 0,
  kSm4CtrHmacSm3 = 1,
};
// "aes-256-gcm" or "sm4-ctr-hmac-sm3".
std::string_view PayloadCipherName(PayloadCipherKind kind);
std::optional<PayloadCipherKind> ParsePayloadCipher(std::string_view name);

class PayloadCipher {
 public:
  static Result<std::unique_ptr<PayloadCipher>> Create(
      std::string_view kek, PayloadCipherKind kind = PayloadCipherKind::kAes256Gcm);
  // Reads a 32-byte, 0600 KEK file.
  static Result<std::unique_ptr<PayloadCipher>> FromKekFile(
      const std::string& path, PayloadCipherKind kind = PayloadCipherKind::kAes256Gcm);

  PayloadCipherKind kind() const { return kind_; }

  // Generates a random DEK with this id (>= 1), makes it the one Encrypt uses, and returns its
  // wrapped form for the caller to persist before using it.
  Result<std::string> NewDataKey(uint32_t id) EXCLUDES(mu_);
  // Generates a random index key and returns its wrapped form, to be persisted under
  // kIndexKeyId before any index entry is written with it.
  Result<std::string> NewIndexKey() EXCLUDES(mu_);
  // Unwraps a persisted key (a DEK, or the index key under kIndexKeyId) so records under it can
  // be decrypted; fails on a wrong KEK.
  Status AddWrappedKey(uint32_t id, std::string_view wrapped) EXCLUDES(mu_);

  // With an index key: the keyed hash that stands for a transaction id or an account in index
  // keys. Without one (a store written before index keys were hashed): none.
  std::optional<std::string> HashedTransactionId(std::string_view tenant,
                                                 std::string_view transaction_id) const
      EXCLUDES(mu_);
  std::optional<std::string> HashedAccount(std::string_view tenant, std::string_view account) const
      EXCLUDES(mu_);
  bool has_index_key() const EXCLUDES(mu_);

  // dek_id u32 BE | cipher id u32 BE | cipher-specific bytes:
  //   AES-256-GCM: seq u64 BE | ciphertext | tag[16]; the nonce is the cipher id (0) and the seq,
  //   unique per DEK because sequence numbers never repeat and every open makes a new DEK.
  //   SM4-CTR/HMAC-SM3: iv[16] | ciphertext | mac[32]; the IV is random.
  // Both authenticate the seq, the DEK id and the cipher id.
  Result<std::string> Encrypt(uint64_t seq, std::string_view plaintext) const EXCLUDES(mu_);
  Result<std::string> Decrypt(uint64_t seq, std::string_view envelope) const EXCLUDES(mu_);

 private:
  struct DataKey {
    std::string key;                // AES-256-GCM uses it as is
    Sm4CtrHmacSm3Keys sm4_ctr_sm3;  // derived from it
  };

  PayloadCipher(std::string kek, PayloadCipherKind kind) : kek_(std::move(kek)), kind_(kind) {}
  Result<std::string> Wrap(uint32_t id, std::string_view key) const;

  const std::string kek_;
  const PayloadCipherKind kind_;
  mutable SharedMutex mu_;
  std::map<uint32_t, DataKey> deks_ GUARDED_BY(mu_);
  std::optional<IndexIdHasher> index_hasher_ GUARDED_BY(mu_);
  uint32_t active_id_ GUARDED_BY(mu_) = 0;
  bool has_active_ GUARDED_BY(mu_) = false;
};

}  // namespace verdict::journal
