#include "journal/digest.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

namespace verdict::journal {
namespace {

// Fetched once: OpenSSL 3's implicit fetch in EVP_sha256() costs more than hashing a record.
const EVP_MD* Sha256Md() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (md == nullptr) std::abort();  // libcrypto without SHA-256 cannot run the journal
  return md;
}

struct CtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

EVP_MD_CTX* ThreadCtx() {
  thread_local std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
  return ctx.get();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Digest Sha256Concat(std::string_view a, std::string_view b, std::string_view c) {
  Digest out{};
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

Digest Sha256(std::string_view data) { return Sha256Concat(data, {}, {}); }

std::string ToHex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  return out;
}

std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexValue(hex[i]);
    int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::optional<Digest> DigestFromHex(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  std::optional<std::string> bytes = FromHex(hex);
  if (!bytes) return std::nullopt;
  Digest out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>((*bytes)[i]);
  return out;
}

}  // namespace verdict::journal
