// Account states sealed against edits at rest (docs/journal_format.md §7.2). The journal stores
// each account's state beside its records, and the engine loads every state at start: a state
// edited, deleted, added, or rolled back to an earlier value in the store would change what the
// engine decides without anything in the chain saying so. Each stored state has a keyed tag
// (HMAC-SHA256 of the account key and the state bytes, under a secret kept in the data
// directory like the signing key, truncated to 128 bits); the journal head carries the sum of
// every stored state's tag modulo 2^128 (a keyed multiset hash), updated in each group commit by
// subtracting the replaced states' tags and adding the new ones. At open the sum over the states
// found must equal the head's. Without the secret, no change to the set of states can keep the
// sum, and the tags are never stored, so none can be copied.
// StateSealer is immutable after construction and thread-safe; StateDigest is a value type.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict::journal {

using StateTag = std::array<uint8_t, 16>;

// Inside the data directory: 32 random bytes, 0600, created with the journal's first sealed head.
inline constexpr std::string_view kStateSealKeyFile = "journal_state_seal.key";

class StateSealer {
 public:
  static constexpr size_t kSecretBytes = 32;
  // Loads <data_dir>/journal_state_seal.key, creating it when `create` and it is missing.
  static Result<StateSealer> Load(const std::string& data_dir, bool create);
  explicit StateSealer(std::string_view secret);  // kSecretBytes

  // The tag of `value` stored under `key`. Never all zero (a zero tag means "nothing stored").
  StateTag Tag(std::string_view key, std::string_view value) const;

 private:
  std::array<uint8_t, 64> inner_pad_{};
  std::array<uint8_t, 64> outer_pad_{};
};

// The sum of a set of tags modulo 2^128.
class StateDigest {
 public:
  static constexpr size_t kBytes = 16;
  void Add(const StateTag& tag);
  void Subtract(const StateTag& tag);
  bool operator==(const StateDigest& other) const = default;

  std::string Encode() const;  // kBytes, big-endian
  static std::optional<StateDigest> Decode(std::string_view bytes);
  std::string Hex() const;

 private:
  // The sum as two 64-bit halves (ISO C++ has no 128-bit integer).
  uint64_t high_ = 0;
  uint64_t low_ = 0;
};

// The problem named when `states` stored account states do not sum to the head's digest.
std::string StateDigestProblem(uint64_t states);

}  // namespace verdict::journal
