#include "journal/state_seal.h"

#include <cstring>
#include <filesystem>

#include "common/sha256.h"
#include "journal/digest.h"
#include "journal/key_file.h"

namespace verdict::journal {

Result<StateSealer> StateSealer::Load(const std::string& data_dir, bool create) {
  const std::string path = (std::filesystem::path(data_dir) / kStateSealKeyFile).string();
  Result<std::string> secret =
      create ? LoadOrCreateSecretFile(path, kSecretBytes) : ReadSecretFile(path, kSecretBytes);
  if (!secret.ok()) return secret.status();
  return StateSealer(*secret);
}

StateSealer::StateSealer(std::string_view secret) {
  // HMAC's padded keys (RFC 2104): the secret is shorter than SHA-256's block.
  for (size_t i = 0; i < inner_pad_.size(); ++i) {
    const uint8_t k = i < secret.size() ? static_cast<uint8_t>(secret[i]) : 0;
    inner_pad_[i] = k ^ 0x36;
    outer_pad_[i] = k ^ 0x5c;
  }
}

StateTag StateSealer::Tag(std::string_view key, std::string_view value) const {
  // The key's length first, so that no (key, value) pair reads as another.
  char length[4];
  const auto n = static_cast<uint32_t>(key.size());
  for (int i = 0; i < 4; ++i) length[i] = static_cast<char>(n >> (24 - 8 * i));
  thread_local std::string message;
  message.assign(length, 4);
  message.append(key);
  const auto pad = [](const std::array<uint8_t, 64>& p) {
    return std::string_view(reinterpret_cast<const char*>(p.data()), p.size());
  };
  const Sha256Digest inner = Sha256Of(pad(inner_pad_), message, value);
  const Sha256Digest outer = Sha256Of(pad(outer_pad_), AsBytes(inner));
  StateTag tag;
  std::memcpy(tag.data(), outer.data(), tag.size());
  if (tag == StateTag{}) tag[tag.size() - 1] = 1;  // zero is kept for "nothing stored"
  return tag;
}

namespace {
uint64_t HalfOf(const StateTag& tag, size_t first) {
  uint64_t v = 0;
  for (size_t i = first; i < first + 8; ++i) v = (v << 8) | tag[i];
  return v;
}
}  // namespace

void StateDigest::Add(const StateTag& tag) {
  const uint64_t low = HalfOf(tag, 8);
  low_ += low;
  high_ += HalfOf(tag, 0) + (low_ < low ? 1 : 0);
}

void StateDigest::Subtract(const StateTag& tag) {
  const uint64_t low = HalfOf(tag, 8);
  const uint64_t borrow = low_ < low ? 1 : 0;
  low_ -= low;
  high_ -= HalfOf(tag, 0) + borrow;
}

std::string StateDigest::Encode() const {
  std::string out(kBytes, '\0');
  for (size_t i = 0; i < 8; ++i) {
    out[i] = static_cast<char>(static_cast<uint8_t>(high_ >> (56 - 8 * i)));
    out[8 + i] = static_cast<char>(static_cast<uint8_t>(low_ >> (56 - 8 * i)));
  }
  return out;
}

std::optional<StateDigest> StateDigest::Decode(std::string_view bytes) {
  if (bytes.size() != kBytes) return std::nullopt;
  StateDigest d;
  for (size_t i = 0; i < 8; ++i) {
    d.high_ = (d.high_ << 8) | static_cast<uint8_t>(bytes[i]);
    d.low_ = (d.low_ << 8) | static_cast<uint8_t>(bytes[8 + i]);
  }
  return d;
}

std::string StateDigest::Hex() const { return ToHex(Encode()); }

std::string StateDigestProblem(uint64_t states) {
  return "the " + std::to_string(states) +
         " stored account states do not match the journal head's sealed digest (a state was "
         "edited, deleted, added or rolled back)";
}

}  // namespace verdict::journal
