#include "journal/digest.h"

#include "common/sha256.h"

namespace verdict::journal {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Digest Sha256Concat(std::string_view a, std::string_view b, std::string_view c) {
  return Sha256Of(a, b, c);
}

Digest Sha256(std::string_view data) { return Sha256Concat(data, {}, {}); }

std::string ToHex(std::string_view bytes) { return HexOf(bytes); }

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
