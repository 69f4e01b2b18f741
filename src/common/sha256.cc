#include "common/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

namespace verdict {
namespace {

const EVP_MD* Sha256Md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (md == nullptr) std::abort();  // a libcrypto without SHA-256 cannot run the engine
  return md;
}

struct CtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

EVP_MD_CTX* ThreadCtx() {
  thread_local std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
  return ctx.get();
}

}  // namespace

Sha256Digest Sha256Of(std::string_view a, std::string_view b, std::string_view c) {
  Sha256Digest out{};
  EVP_MD_CTX* ctx = ThreadCtx();
  unsigned int len = 0;
  if (ctx == nullptr || EVP_DigestInit_ex2(ctx, Sha256Md(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx, a.data(), a.size()) != 1 ||
      EVP_DigestUpdate(ctx, b.data(), b.size()) != 1 ||
      EVP_DigestUpdate(ctx, c.data(), c.size()) != 1 ||
      EVP_DigestFinal_ex(ctx, out.data(), &len) != 1 || len != out.size()) {
    std::abort();  // only on allocation failure inside libcrypto
  }
  return out;
}

std::string HexOf(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  return out;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256Digest digest = Sha256Of(bytes);
  return HexOf(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace verdict
