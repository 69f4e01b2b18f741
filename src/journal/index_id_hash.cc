#include "journal/index_id_hash.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>

#include "journal/bytes.h"

namespace verdict::journal {
namespace {

constexpr size_t kHashBytes = 16;

}  // namespace

std::string IndexIdHasher::TransactionId(std::string_view tenant,
                                         std::string_view transaction_id) const {
  return Hash("verdict-index-transaction-v1", tenant, transaction_id);
}

std::string IndexIdHasher::Account(std::string_view tenant, std::string_view account) const {
  return Hash("verdict-index-account-v1", tenant, account);
}

std::string IndexIdHasher::Hash(std::string_view label, std::string_view tenant,
                                std::string_view id) const {
  // Length-prefixed fields: ("a", "b\0c") and ("a\0b", "c") must not hash alike.
  std::string input;
  ByteWriter w(input);
  w.Str(label);
  w.Str(tenant);
  w.Str(id);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac,
           &mac_len) == nullptr) {
    // HMAC-SHA256 fails only when OpenSSL cannot allocate; an index key in the clear or a
    // wrong one would be worse than stopping.
    std::abort();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * kHashBytes);
  for (size_t i = 0; i < kHashBytes; ++i) {
    hex += kHex[mac[i] >> 4];
    hex += kHex[mac[i] & 0xF];
  }
  return hex;
}

}  // namespace verdict::journal
