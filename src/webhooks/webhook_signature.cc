#include "webhooks/webhook_signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/sha256.h"

namespace verdict::webhooks {

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // One call a delivery, off the decision path: the one-shot HMAC's implicit fetch is cheap
  // enough here.
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest,
           &length) == nullptr) {
    return {};
  }
  return HexOf(std::string_view(reinterpret_cast<const char*>(digest), length));
}

std::string SignatureHeaderValue(std::string_view secret, int64_t unix_seconds,
                                 std::string_view body) {
  const std::string timestamp = std::to_string(unix_seconds);
  std::string message;
  message.reserve(timestamp.size() + 1 + body.size());
  message.append(timestamp).append(".").append(body);
  return "t=" + timestamp + ",v1=" + HmacSha256Hex(secret, message);
}

}  // namespace verdict::webhooks
