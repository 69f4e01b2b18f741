// SHA-256 via OpenSSL, with the digest implementation fetched once and one context per thread:
// OpenSSL 3's implicit fetch (EVP_Digest with EVP_sha256()) costs several microseconds a call,
// more than hashing an API key or a record. Stateless to callers; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace verdict {

using Sha256Digest = std::array<uint8_t, 32>;

// SHA-256 of the concatenation a || b || c, without building it.
Sha256Digest Sha256Of(std::string_view a, std::string_view b = {}, std::string_view c = {});

// Lowercase hex of a byte string.
std::string HexOf(std::string_view bytes);

std::string Sha256Hex(std::string_view bytes);

}  // namespace verdict
