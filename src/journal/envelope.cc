#include "journal/envelope.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "journal/bytes.h"
#include "journal/key_file.h"

namespace verdict::journal {
namespace {

constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;
constexpr size_t kKeyBytes = 32;
constexpr std::string_view kRecordAad = "verdict-journal-record-v1";
// The SM4 records' associated data differs from the GCM records' in its label as well as in the
// cipher id, so no record's authenticated input can be read as the other cipher's.
constexpr std::string_view kSm4RecordAad = "verdict-journal-record-sm4-ctr-hmac-sm3-v1";
constexpr std::string_view kDekAad = "verdict-journal-dek-v1";

struct CipherCtxDeleter {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};

const unsigned char* U(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// ciphertext || tag
Result<std::string> GcmSeal(std::string_view key, std::string_view nonce, std::string_view aad,
                            std::string_view plaintext) {
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter> ctx(EVP_CIPHER_CTX_new());
  std::string out(plaintext.size() + kTagBytes, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  int len = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, U(key), U(nonce)) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &len, U(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_EncryptUpdate(ctx.get(), o, &len, U(plaintext), static_cast<int>(plaintext.size())) !=
          1 ||
      EVP_EncryptFinal_ex(ctx.get(), o + len, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes, o + plaintext.size()) != 1) {
    return Internal("AES-256-GCM encryption failed");
  }
  return out;
}

Result<std::string> GcmOpen(std::string_view key, std::string_view nonce, std::string_view aad,
                            std::string_view sealed) {
  if (sealed.size() < kTagBytes) return InvalidArgument("ciphertext too short");
  std::string_view ct = sealed.substr(0, sealed.size() - kTagBytes);
  std::string tag(sealed.substr(ct.size()));
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter> ctx(EVP_CIPHER_CTX_new());
  std::string out(ct.size(), '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  int len = 0;
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, U(key), U(nonce)) != 1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, U(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_DecryptUpdate(ctx.get(), o, &len, U(ct), static_cast<int>(ct.size())) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), o + len, &len) != 1) {
    return InvalidArgument("AES-256-GCM authentication failed (wrong key or altered bytes)");
  }
  return out;
}

std::string DekAad(uint32_t id) {
  std::string aad(kDekAad);
  ByteWriter(aad).U32(id);
  return aad;
}

std::string RecordAad(uint64_t seq, uint32_t id) {
  std::string aad(kRecordAad);
  ByteWriter w(aad);
  w.U64(seq);
  w.U32(id);
  return aad;
}

std::string Sm4RecordAad(uint64_t seq, uint32_t id) {
  std::string aad(kSm4RecordAad);
  ByteWriter w(aad);
  w.U64(seq);
  w.U32(id);
  w.U32(static_cast<uint32_t>(PayloadCipherKind::kSm4CtrHmacSm3));
  return aad;
}

std::string RecordNonce(uint64_t seq) {
  std::string nonce;
  ByteWriter w(nonce);
  w.U32(0);
  w.U64(seq);
  return nonce;
}

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return Internal("CSPRNG failure");
  }
  return out;
}

}  // namespace

std::string_view PayloadCipherName(PayloadCipherKind kind) {
  switch (kind) {
    case PayloadCipherKind::kAes256Gcm:
      return "aes-256-gcm";
    case PayloadCipherKind::kSm4CtrHmacSm3:
      return "sm4-ctr-hmac-sm3";
  }
  return "unknown";
}

std::optional<PayloadCipherKind> ParsePayloadCipher(std::string_view name) {
  for (PayloadCipherKind kind :
       {PayloadCipherKind::kAes256Gcm, PayloadCipherKind::kSm4CtrHmacSm3}) {
    if (name == PayloadCipherName(kind)) return kind;
  }
  return std::nullopt;
}

Result<std::unique_ptr<PayloadCipher>> PayloadCipher::Create(std::string_view kek,
                                                             PayloadCipherKind kind) {
  if (kek.size() != kKekBytes) return InvalidArgument("a key-encryption key is 32 bytes");
  return std::unique_ptr<PayloadCipher>(new PayloadCipher(std::string(kek), kind));
}

Result<std::unique_ptr<PayloadCipher>> PayloadCipher::FromKekFile(const std::string& path,
                                                                  PayloadCipherKind kind) {
  VERDICT_ASSIGN_OR_RETURN(std::string kek, ReadSecretFile(path, kKekBytes));
  return Create(kek, kind);
}

Result<std::string> PayloadCipher::Wrap(uint32_t id, std::string_view key) const {
  VERDICT_ASSIGN_OR_RETURN(std::string nonce, RandomBytes(kNonceBytes));
  VERDICT_ASSIGN_OR_RETURN(std::string sealed, GcmSeal(kek_, nonce, DekAad(id), key));
  return nonce + sealed;
}

Result<std::string> PayloadCipher::NewDataKey(uint32_t id) {
  if (id == kIndexKeyId) return InvalidArgument("data key ids start at 1");
  VERDICT_ASSIGN_OR_RETURN(std::string dek, RandomBytes(kKeyBytes));
  VERDICT_ASSIGN_OR_RETURN(std::string wrapped, Wrap(id, dek));
  VERDICT_ASSIGN_OR_RETURN(Sm4CtrHmacSm3Keys sm4, DeriveSm4CtrHmacSm3Keys(dek));
  WriterLock lock(mu_);
  deks_[id] = DataKey{std::move(dek), std::move(sm4)};
  active_id_ = id;
  has_active_ = true;
  return wrapped;
}

Result<std::string> PayloadCipher::NewIndexKey() {
  VERDICT_ASSIGN_OR_RETURN(std::string key, RandomBytes(kKeyBytes));
  VERDICT_ASSIGN_OR_RETURN(std::string wrapped, Wrap(kIndexKeyId, key));
  WriterLock lock(mu_);
  index_hasher_.emplace(std::move(key));
  return wrapped;
}

Status PayloadCipher::AddWrappedKey(uint32_t id, std::string_view wrapped) {
  if (wrapped.size() != kNonceBytes + kKeyBytes + kTagBytes) {
    return InvalidArgument("bad wrapped key");
  }
  Result<std::string> key =
      GcmOpen(kek_, wrapped.substr(0, kNonceBytes), DekAad(id), wrapped.substr(kNonceBytes));
  if (!key.ok()) {
    return InvalidArgument("cannot unwrap data key " + std::to_string(id) +
                           ": wrong key-encryption key?");
  }
  if (id == kIndexKeyId) {
    WriterLock lock(mu_);
    index_hasher_.emplace(std::move(key).value());
    return Status::Ok();
  }
  VERDICT_ASSIGN_OR_RETURN(Sm4CtrHmacSm3Keys sm4, DeriveSm4CtrHmacSm3Keys(*key));
  WriterLock lock(mu_);
  deks_[id] = DataKey{std::move(key).value(), std::move(sm4)};
  return Status::Ok();
}

std::optional<std::string> PayloadCipher::HashedTransactionId(
    std::string_view tenant, std::string_view transaction_id) const {
  ReaderLock lock(mu_);
  if (!index_hasher_) return std::nullopt;
  return index_hasher_->TransactionId(tenant, transaction_id);
}

std::optional<std::string> PayloadCipher::HashedAccount(std::string_view tenant,
                                                        std::string_view account) const {
  ReaderLock lock(mu_);
  if (!index_hasher_) return std::nullopt;
  return index_hasher_->Account(tenant, account);
}

bool PayloadCipher::has_index_key() const {
  ReaderLock lock(mu_);
  return index_hasher_.has_value();
}

Result<std::string> PayloadCipher::Encrypt(uint64_t seq, std::string_view plaintext) const {
  ReaderLock lock(mu_);
  if (!has_active_) return Internal("no active data key");
  const uint32_t id = active_id_;
  const DataKey& dek = deks_.at(id);
  std::string out;
  ByteWriter(out).U32(id);
  if (kind_ == PayloadCipherKind::kSm4CtrHmacSm3) {
    ByteWriter(out).U32(static_cast<uint32_t>(kind_));
    VERDICT_ASSIGN_OR_RETURN(std::string sealed,
                             Sm4CtrHmacSm3Seal(dek.sm4_ctr_sm3, Sm4RecordAad(seq, id), plaintext));
    out += sealed;
    return out;
  }
  std::string nonce = RecordNonce(seq);
  VERDICT_ASSIGN_OR_RETURN(std::string sealed,
                           GcmSeal(dek.key, nonce, RecordAad(seq, id), plaintext));
  out += nonce;
  out += sealed;
  return out;
}

Result<std::string> PayloadCipher::Decrypt(uint64_t seq, std::string_view envelope) const {
  ByteReader r(envelope);
  const uint32_t id = r.U32();
  const uint32_t cipher_id = r.U32();
  if (!r.ok()) return InvalidArgument("encrypted payload too short");
  ReaderLock lock(mu_);
  auto it = deks_.find(id);
  if (it == deks_.end()) return NotFound("unknown data key " + std::to_string(id));
  switch (static_cast<PayloadCipherKind>(cipher_id)) {
    case PayloadCipherKind::kAes256Gcm: {
      std::string_view nonce = envelope.substr(4, kNonceBytes);
      if (nonce != RecordNonce(seq)) {
        return InvalidArgument("encrypted payload has a foreign nonce");
      }
      return GcmOpen(it->second.key, nonce, RecordAad(seq, id), envelope.substr(4 + kNonceBytes));
    }
    case PayloadCipherKind::kSm4CtrHmacSm3:
      return Sm4CtrHmacSm3Open(it->second.sm4_ctr_sm3, Sm4RecordAad(seq, id), r.Raw(r.remaining()));
  }
  return InvalidArgument("encrypted payload names an unknown cipher " + std::to_string(cipher_id));
}

}  // namespace verdict::journal
