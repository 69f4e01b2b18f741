// SHA-256 digests for the journal (record hashes, Merkle nodes, input hashes) and hex helpers.
// Digest is a value type; the functions are stateless and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/sha256.h"

namespace verdict::journal {

using Digest = Sha256Digest;  // common/sha256.h computes it

Digest Sha256(std::string_view data);
// SHA-256 of the concatenation a || b || c, without building it.
Digest Sha256Concat(std::string_view a, std::string_view b, std::string_view c = {});

inline std::string_view AsBytes(const Digest& digest) {
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
}

std::string ToHex(std::string_view bytes);
inline std::string ToHex(const Digest& digest) { return ToHex(AsBytes(digest)); }
// Lower- or upper-case hex of exactly 2 * N characters.
std::optional<std::string> FromHex(std::string_view hex);
std::optional<Digest> DigestFromHex(std::string_view hex);

}  // namespace verdict::journal
