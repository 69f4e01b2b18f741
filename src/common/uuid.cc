#include "common/uuid.h"

#include <cassert>

namespace verdict {
namespace {

constexpr char kHex[] = "0123456789abcdef";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string Uuid::ToString() const {
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0xF];
  }
  return out;
}

std::optional<Uuid> Uuid::Parse(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  Uuid uuid;
  size_t byte = 0;
  for (size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    int hi = HexValue(text[i]);
    int lo = HexValue(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    uuid.bytes[byte++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return uuid;
}

uint64_t Uuid::unix_millis() const {
  uint64_t ms = 0;
  for (int i = 0; i < 6; ++i) ms = ms << 8 | bytes[i];
  return ms;
}

UuidV7Generator::UuidV7Generator(const Clock& clock, uint64_t seed) : clock_(clock), rng_(seed) {}

Uuid UuidV7Generator::Next() {
  uint64_t millis;
  uint16_t counter;
  uint64_t random;
  {
    MutexLock lock(mu_);
    uint64_t now = static_cast<uint64_t>(clock_.NowMicros() / 1000);
    if (now > last_millis_) {
      last_millis_ = now;
      counter_ = static_cast<uint16_t>(rng_() & 0x1FF);  // random start, headroom to count up
    } else if (++counter_ > 0xFFF) {
      ++last_millis_;  // the clock stood still or went back: keep ids increasing
      counter_ = 0;
    }
    assert(counter_ <= 0xFFF);  // fits rand_a's 12 bits
    millis = last_millis_;
    counter = counter_;
    random = rng_();
  }
  Uuid uuid;
  for (int i = 0; i < 6; ++i) uuid.bytes[i] = static_cast<uint8_t>(millis >> (8 * (5 - i)));
  uuid.bytes[6] = static_cast<uint8_t>(0x70 | (counter >> 8));
  uuid.bytes[7] = static_cast<uint8_t>(counter & 0xFF);
  for (int i = 0; i < 8; ++i) uuid.bytes[8 + i] = static_cast<uint8_t>(random >> (8 * (7 - i)));
  uuid.bytes[8] = static_cast<uint8_t>(0x80 | (uuid.bytes[8] & 0x3F));
  return uuid;
}

}  // namespace verdict
