// Signed checkpoints: (tree size, Merkle root, last record hash, time) signed with Ed25519
// (docs/journal_format.md §5), and the signer that holds the private key. Checkpoint is a value
// type; CheckpointSigner is immutable after Create and thread-safe.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "journal/digest.h"

namespace verdict::journal {

using PublicKey = std::array<uint8_t, 32>;
using Signature = std::array<uint8_t, 64>;

inline constexpr std::string_view kCheckpointMagic = "VJC1";
inline constexpr size_t kCheckpointBytes = 4 + 8 + 32 + 32 + 8 + 32 + 64;
// File names inside the data dir.
inline constexpr std::string_view kSigningKeyFile = "journal_signing.key";  // 32-byte seed, 0600
inline constexpr std::string_view kPublicKeyFile = "journal_signing.pub";   // hex, 0644

struct Checkpoint {
  uint64_t tree_size = 0;  // records 1..tree_size are covered
  Digest root{};           // RFC 6962 root over their record hashes
  Digest last_record_hash{};
  int64_t time_us = 0;
  PublicKey public_key{};
  Signature signature{};
};

// The signed message: "verdict-journal-checkpoint-v1\0" then the encoding up to the signature.
std::string CheckpointSignedMessage(const Checkpoint& checkpoint);
std::string EncodeCheckpoint(const Checkpoint& checkpoint);
Result<Checkpoint> DecodeCheckpoint(std::string_view bytes);
// True when the signature verifies under `trusted_key` (which must equal the embedded key).
bool VerifyCheckpointSignature(const Checkpoint& checkpoint, const PublicKey& trusted_key);

class CheckpointSigner {
 public:
  // From a 32-byte Ed25519 private key (seed).
  static Result<std::unique_ptr<CheckpointSigner>> Create(std::string_view seed);
  // Loads <data_dir>/journal_signing.key, creating it (and the .pub beside it) when missing.
  static Result<std::unique_ptr<CheckpointSigner>> LoadOrCreate(const std::string& data_dir);

  const PublicKey& public_key() const { return public_key_; }
  // Fills checkpoint.public_key and checkpoint.signature.
  Status Sign(Checkpoint& checkpoint) const;

 private:
  struct KeyDeleter {
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
  };
  std::unique_ptr<EVP_PKEY, KeyDeleter> key_;
  PublicKey public_key_{};
};

// Reads the trusted public key: <data_dir>/journal_signing.pub, or derived from the .key.
Result<PublicKey> LoadPublicKey(const std::string& data_dir);
std::optional<PublicKey> ParsePublicKeyHex(std::string_view hex);

}  // namespace verdict::journal
