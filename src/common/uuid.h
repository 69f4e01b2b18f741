// UUIDv7 (RFC 9562): 48-bit Unix millisecond timestamp, version 7, variant 10, and a
// counter-plus-random tail so that ids from one generator sort in creation order.
// Uuid is a value type. UuidV7Generator is thread-safe (one mutex, held for a few ns).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict {

struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // Canonical lower-case 8-4-4-4-12 form.
  std::string ToString() const;
  static std::optional<Uuid> Parse(std::string_view text);
  int version() const { return bytes[6] >> 4; }
  int variant_bits() const { return bytes[8] >> 6; }
  uint64_t unix_millis() const;
  auto operator<=>(const Uuid&) const = default;
};

class UuidV7Generator {
 public:
  explicit UuidV7Generator(const Clock& clock, uint64_t seed = std::random_device{}());
  Uuid Next() EXCLUDES(mu_);

 private:
  const Clock& clock_;
  Mutex mu_;
  std::mt19937_64 rng_ GUARDED_BY(mu_);
  uint64_t last_millis_ GUARDED_BY(mu_) = 0;
  // 12-bit rand_a used as a counter within one millisecond (RFC 9562 §6.2, method 1), then
  // 62 random bits; on counter overflow the timestamp is advanced by one millisecond.
  uint16_t counter_ GUARDED_BY(mu_) = 0;
};

}  // namespace verdict
