#include "journal/checkpoint.h"

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "journal/bytes.h"
#include "journal/key_file.h"

namespace verdict::journal {
namespace {

constexpr std::string_view kSignatureContext("verdict-journal-checkpoint-v1\0", 30);

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

void EncodeUnsigned(const Checkpoint& c, std::string& out) {
  ByteWriter w(out);
  w.Raw(kCheckpointMagic);
  w.U64(c.tree_size);
  w.Raw(AsBytes(c.root));
  w.Raw(AsBytes(c.last_record_hash));
  w.I64(c.time_us);
  w.Raw(std::string_view(reinterpret_cast<const char*>(c.public_key.data()), 32));
}

std::string JoinPath(const std::string& dir, std::string_view file) {
  return dir + "/" + std::string(file);
}

}  // namespace

std::string CheckpointSignedMessage(const Checkpoint& c) {
  std::string out(kSignatureContext);
  EncodeUnsigned(c, out);
  return out;
}

std::string EncodeCheckpoint(const Checkpoint& c) {
  std::string out;
  EncodeUnsigned(c, out);
  out.append(reinterpret_cast<const char*>(c.signature.data()), c.signature.size());
  return out;
}

Result<Checkpoint> DecodeCheckpoint(std::string_view bytes) {
  if (bytes.size() != kCheckpointBytes || bytes.substr(0, 4) != kCheckpointMagic) {
    return InvalidArgument("malformed checkpoint");
  }
  ByteReader r(bytes.substr(4));
  Checkpoint c;
  c.tree_size = r.U64();
  c.root = r.Array<32>();
  c.last_record_hash = r.Array<32>();
  c.time_us = r.I64();
  c.public_key = r.Array<32>();
  c.signature = r.Array<64>();
  if (!r.ok() || !r.at_end()) return InvalidArgument("malformed checkpoint");
  return c;
}

bool VerifyCheckpointSignature(const Checkpoint& c, const PublicKey& trusted_key) {
  if (c.public_key != trusted_key) return false;
  EVP_PKEY* raw = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, trusted_key.data(),
                                              trusted_key.size());
  if (raw == nullptr) return false;
  std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY*)> key(raw, EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
    return false;
  }
  std::string msg = CheckpointSignedMessage(c);
  return EVP_DigestVerify(ctx.get(), c.signature.data(), c.signature.size(),
                          reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) == 1;
}

Result<std::unique_ptr<CheckpointSigner>> CheckpointSigner::Create(std::string_view seed) {
  if (seed.size() != 32) return InvalidArgument("an Ed25519 private key is 32 bytes");
  auto signer = std::unique_ptr<CheckpointSigner>(new CheckpointSigner());
  signer->key_.reset(EVP_PKEY_new_raw_private_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(seed.data()), 32));
  if (!signer->key_) return Internal("cannot load the Ed25519 key");
  size_t len = signer->public_key_.size();
  if (EVP_PKEY_get_raw_public_key(signer->key_.get(), signer->public_key_.data(), &len) != 1 ||
      len != 32) {
    return Internal("cannot derive the Ed25519 public key");
  }
  return signer;
}

Result<std::unique_ptr<CheckpointSigner>> CheckpointSigner::LoadOrCreate(
    const std::string& data_dir) {
  VERDICT_ASSIGN_OR_RETURN(std::string seed,
                           LoadOrCreateSecretFile(JoinPath(data_dir, kSigningKeyFile), 32));
  VERDICT_ASSIGN_OR_RETURN(auto signer, Create(seed));
  std::string pub_hex =
      ToHex(std::string_view(reinterpret_cast<const char*>(signer->public_key().data()), 32));
  std::string pub_path = JoinPath(data_dir, kPublicKeyFile);
  Status written = WriteNewFile(pub_path, pub_hex + "\n", 0644);
  if (written.code() == StatusCode::kAlreadyExists) {
    VERDICT_ASSIGN_OR_RETURN(PublicKey on_disk, LoadPublicKey(data_dir));
    if (on_disk != signer->public_key()) {
      return Status(StatusCode::kFailedPrecondition,
                    pub_path + " does not match " + std::string(kSigningKeyFile));
    }
  } else {
    VERDICT_RETURN_IF_ERROR(written);
  }
  return signer;
}

Status CheckpointSigner::Sign(Checkpoint& c) const {
  c.public_key = public_key_;
  std::string msg = CheckpointSignedMessage(c);
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  size_t sig_len = c.signature.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), c.signature.data(), &sig_len,
                     reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) != 1 ||
      sig_len != c.signature.size()) {
    return Internal("Ed25519 signing failed");
  }
  return Status::Ok();
}

std::optional<PublicKey> ParsePublicKeyHex(std::string_view hex) {
  std::optional<Digest> bytes = DigestFromHex(hex);
  if (!bytes) return std::nullopt;
  PublicKey key{};
  std::memcpy(key.data(), bytes->data(), 32);
  return key;
}

Result<PublicKey> LoadPublicKey(const std::string& data_dir) {
  std::ifstream in(JoinPath(data_dir, kPublicKeyFile));
  if (in) {
    std::string hex;
    in >> hex;
    std::optional<PublicKey> key = ParsePublicKeyHex(hex);
    if (!key) return InvalidArgument(std::string(kPublicKeyFile) + " is not 64 hex digits");
    return *key;
  }
  VERDICT_ASSIGN_OR_RETURN(std::string seed,
                           ReadSecretFile(JoinPath(data_dir, kSigningKeyFile), 32));
  VERDICT_ASSIGN_OR_RETURN(auto signer, CheckpointSigner::Create(seed));
  return signer->public_key();
}

}  // namespace verdict::journal
