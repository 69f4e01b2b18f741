#include "journal/envelope.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "journal/bytes.h"
#include "journal/key_file.h"

namespace verdict::journal {
namespace {

constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;
constexpr std::string_view kRecordAad = "verdict-journal-record-v1";
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

std::string RecordNonce(uint64_t seq) {
  std::string nonce;
  ByteWriter w(nonce);
  w.U32(0);
  w.U64(seq);
  return nonce;
}

}  // namespace

Result<std::unique_ptr<PayloadCipher>> PayloadCipher::Create(std::string_view kek) {
  if (kek.size() != kKekBytes) return InvalidArgument("a key-encryption key is 32 bytes");
  return std::unique_ptr<PayloadCipher>(new PayloadCipher(std::string(kek)));
}

Result<std::unique_ptr<PayloadCipher>> PayloadCipher::FromKekFile(const std::string& path) {
  VERDICT_ASSIGN_OR_RETURN(std::string kek, ReadSecretFile(path, kKekBytes));
  return Create(kek);
}

Result<std::string> PayloadCipher::NewDataKey(uint32_t id) {
  std::string dek(32, '\0');
  std::string nonce(kNonceBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(dek.data()), 32) != 1 ||
      RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), kNonceBytes) != 1) {
    return Internal("CSPRNG failure");
  }
  VERDICT_ASSIGN_OR_RETURN(std::string sealed, GcmSeal(kek_, nonce, DekAad(id), dek));
  WriterLock lock(mu_);
  deks_[id] = std::move(dek);
  active_id_ = id;
  has_active_ = true;
  return nonce + sealed;
}

Status PayloadCipher::AddWrappedKey(uint32_t id, std::string_view wrapped) {
  if (wrapped.size() != kNonceBytes + 32 + kTagBytes) return InvalidArgument("bad wrapped key");
  Result<std::string> dek =
      GcmOpen(kek_, wrapped.substr(0, kNonceBytes), DekAad(id), wrapped.substr(kNonceBytes));
  if (!dek.ok()) {
    return InvalidArgument("cannot unwrap data key " + std::to_string(id) +
                           ": wrong key-encryption key?");
  }
  WriterLock lock(mu_);
  deks_[id] = std::move(dek).value();
  return Status::Ok();
}

Result<std::string> PayloadCipher::Encrypt(uint64_t seq, std::string_view plaintext) const {
  ReaderLock lock(mu_);
  if (!has_active_) return Internal("no active data key");
  uint32_t id = active_id_;
  std::string nonce = RecordNonce(seq);
  VERDICT_ASSIGN_OR_RETURN(std::string sealed,
                           GcmSeal(deks_.at(id), nonce, RecordAad(seq, id), plaintext));
  std::string out;
  ByteWriter(out).U32(id);
  out += nonce;
  out += sealed;
  return out;
}

Result<std::string> PayloadCipher::Decrypt(uint64_t seq, std::string_view envelope) const {
  ByteReader r(envelope);
  uint32_t id = r.U32();
  std::string_view nonce = r.Raw(kNonceBytes);
  if (!r.ok()) return InvalidArgument("encrypted payload too short");
  if (nonce != RecordNonce(seq)) return InvalidArgument("encrypted payload has a foreign nonce");
  ReaderLock lock(mu_);
  auto it = deks_.find(id);
  if (it == deks_.end()) return NotFound("unknown data key " + std::to_string(id));
  return GcmOpen(it->second, nonce, RecordAad(seq, id), r.Raw(r.remaining()));
}

}  // namespace verdict::journal
