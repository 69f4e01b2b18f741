// Big-endian, length-prefixed byte encoding used by every journal format (docs/journal_format.md).
// ByteWriter appends to a caller-owned string; ByteReader is a strict cursor over a view that
// fails (and stays failed) on any read past the end. Neither is thread-safe.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace verdict::journal {

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}

  void U8(uint8_t v) { out_ += static_cast<char>(v); }
  // One append per integer, not one per byte: records are encoded on every decision.
  void U32(uint32_t v) { AppendBigEndian(v); }
  void U64(uint64_t v) { AppendBigEndian(v); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  // The IEEE 754 bit pattern, so the encoding of a double is exact and deterministic.
  void F64(double v) { U64(std::bit_cast<uint64_t>(v)); }
  void Raw(std::string_view bytes) { out_.append(bytes); }
  // u32 length, then the bytes.
  void Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }

 private:
  template <typename T>
  void AppendBigEndian(T v) {
    char bytes[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i) {
      bytes[i] = static_cast<char>((v >> (8 * (sizeof(T) - 1 - i))) & 0xFF);
    }
    out_.append(bytes, sizeof(T));
  }

  std::string& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}

  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }

  uint8_t U8() {
    if (!Need(1)) return 0;
    return static_cast<uint8_t>(data_[pos_++]);
  }
  uint32_t U32() {
    if (!Need(4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(data_[pos_++]);
    return v;
  }
  uint64_t U64() {
    if (!Need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(data_[pos_++]);
    return v;
  }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  double F64() { return std::bit_cast<double>(U64()); }
  std::string_view Raw(size_t n) {
    if (!Need(n)) return {};
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  // A u32-length-prefixed string of at most `max_len` bytes.
  std::string_view Str(size_t max_len) {
    uint32_t len = U32();
    if (!ok_) return {};
    if (len > max_len) {
      ok_ = false;
      return {};
    }
    return Raw(len);
  }
  template <size_t N>
  std::array<uint8_t, N> Array() {
    std::array<uint8_t, N> out{};
    std::string_view bytes = Raw(N);
    if (ok_) std::memcpy(out.data(), bytes.data(), N);
    return out;
  }
  void Fail() { ok_ = false; }

 private:
  bool Need(size_t n) {
    if (!ok_ || data_.size() - pos_ < n) {
      ok_ = false;
      return false;
    }
    return true;
  }

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace verdict::journal
