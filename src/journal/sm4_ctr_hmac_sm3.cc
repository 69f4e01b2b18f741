#include "journal/sm4_ctr_hmac_sm3.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#include <memory>

#include "journal/bytes.h"

namespace verdict::journal {
namespace {

constexpr std::string_view kKdfInfo = "verdict-journal-sm4-ctr-hmac-sm3-v1";

struct CipherCtxDeleter {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
struct MacCtxDeleter {
  void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};
struct KdfCtxDeleter {
  void operator()(EVP_KDF_CTX* ctx) const { EVP_KDF_CTX_free(ctx); }
};

const unsigned char* U(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// Fetched once: an implementation lookup per record would cost more than the MAC of a record.
EVP_MAC* HmacAlgorithm() {
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  return mac;
}
EVP_CIPHER* Sm4CtrAlgorithm() {
  static EVP_CIPHER* const cipher = EVP_CIPHER_fetch(nullptr, "SM4-CTR", nullptr);
  return cipher;
}
EVP_KDF* HkdfAlgorithm() {
  static EVP_KDF* const kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  return kdf;
}

}  // namespace

Result<Sm4CtrHmacSm3Keys> DeriveSm4CtrHmacSm3Keys(std::string_view data_key) {
  if (HkdfAlgorithm() == nullptr) return Internal("OpenSSL has no HKDF");
  std::unique_ptr<EVP_KDF_CTX, KdfCtxDeleter> ctx(EVP_KDF_CTX_new(HkdfAlgorithm()));
  char digest[] = "SM3";
  std::string info(kKdfInfo);
  std::string key(data_key);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, key.data(), key.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
      OSSL_PARAM_construct_end(),
  };
  std::string okm(kSm4KeyBytes + kSm3MacKeyBytes, '\0');
  if (!ctx || EVP_KDF_derive(ctx.get(), reinterpret_cast<unsigned char*>(okm.data()), okm.size(),
                             params) != 1) {
    OPENSSL_cleanse(key.data(), key.size());
    return Internal("HKDF-SM3 failed");
  }
  OPENSSL_cleanse(key.data(), key.size());
  Sm4CtrHmacSm3Keys keys{okm.substr(0, kSm4KeyBytes), okm.substr(kSm4KeyBytes)};
  OPENSSL_cleanse(okm.data(), okm.size());
  return keys;
}

Result<std::string> Sm4Ctr(std::string_view key, std::string_view iv, std::string_view input) {
  if (key.size() != kSm4KeyBytes || iv.size() != kSm4IvBytes) {
    return InvalidArgument("SM4-CTR takes a 16-byte key and a 16-byte IV");
  }
  if (Sm4CtrAlgorithm() == nullptr) return Internal("OpenSSL has no SM4-CTR");
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter> ctx(EVP_CIPHER_CTX_new());
  std::string out(input.size(), '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  int len = 0;
  int final_len = 0;
  if (!ctx || EVP_EncryptInit_ex2(ctx.get(), Sm4CtrAlgorithm(), U(key), U(iv), nullptr) != 1 ||
      EVP_EncryptUpdate(ctx.get(), o, &len, U(input), static_cast<int>(input.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), o + len, &final_len) != 1) {
    return Internal("SM4-CTR failed");
  }
  return out;
}

Result<std::string> HmacSm3(std::string_view key, std::string_view first, std::string_view second) {
  if (HmacAlgorithm() == nullptr) return Internal("OpenSSL has no HMAC");
  std::unique_ptr<EVP_MAC_CTX, MacCtxDeleter> ctx(EVP_MAC_CTX_new(HmacAlgorithm()));
  char digest[] = "SM3";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_end(),
  };
  std::string out(kSm3MacBytes, '\0');
  size_t out_len = 0;
  if (!ctx || EVP_MAC_init(ctx.get(), U(key), key.size(), params) != 1 ||
      EVP_MAC_update(ctx.get(), U(first), first.size()) != 1 ||
      EVP_MAC_update(ctx.get(), U(second), second.size()) != 1 ||
      EVP_MAC_final(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &out_len,
                    out.size()) != 1 ||
      out_len != kSm3MacBytes) {
    return Internal("HMAC-SM3 failed");
  }
  return out;
}

namespace {

// u32 len(aad) || aad: the length prefix keeps the boundary between the associated data and
// the IV unambiguous whatever the caller's associated data is.
std::string MacPrefix(std::string_view aad) {
  std::string prefix;
  ByteWriter w(prefix);
  w.U32(static_cast<uint32_t>(aad.size()));
  w.Raw(aad);
  return prefix;
}

}  // namespace

Result<std::string> Sm4CtrHmacSm3Seal(const Sm4CtrHmacSm3Keys& keys, std::string_view aad,
                                      std::string_view plaintext) {
  std::string iv(kSm4IvBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(iv.data()), kSm4IvBytes) != 1) {
    return Internal("CSPRNG failure");
  }
  VERDICT_ASSIGN_OR_RETURN(std::string ciphertext, Sm4Ctr(keys.encryption, iv, plaintext));
  std::string sealed = std::move(iv);
  sealed += ciphertext;
  VERDICT_ASSIGN_OR_RETURN(std::string mac, HmacSm3(keys.authentication, MacPrefix(aad), sealed));
  sealed += mac;
  return sealed;
}

Result<std::string> Sm4CtrHmacSm3Open(const Sm4CtrHmacSm3Keys& keys, std::string_view aad,
                                      std::string_view sealed) {
  if (sealed.size() < kSm4IvBytes + kSm3MacBytes) return InvalidArgument("ciphertext too short");
  std::string_view authenticated = sealed.substr(0, sealed.size() - kSm3MacBytes);
  std::string_view mac = sealed.substr(authenticated.size());
  VERDICT_ASSIGN_OR_RETURN(std::string expected,
                           HmacSm3(keys.authentication, MacPrefix(aad), authenticated));
  // Constant time: how many leading bytes of a forged MAC match must not be measurable.
  if (CRYPTO_memcmp(expected.data(), mac.data(), kSm3MacBytes) != 0) {
    return InvalidArgument("SM4-CTR/HMAC-SM3 authentication failed (wrong key or altered bytes)");
  }
  return Sm4Ctr(keys.encryption, authenticated.substr(0, kSm4IvBytes),
                authenticated.substr(kSm4IvBytes));
}

}  // namespace verdict::journal
