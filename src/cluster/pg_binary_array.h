// PgBinaryArray: a one-dimensional PostgreSQL array (bytea[] or int8[]) in the binary wire
// format a statement parameter takes (libpq's paramFormats = 1), built element by element, so
// that a whole group's rows go to the server as a few parameters that need neither quoting nor
// parsing. Elements are never null. Not thread-safe; the buffer is kept across Clear.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace verdict::cluster {

class PgBinaryArray {
 public:
  // PostgreSQL's type OIDs of the element types this builds.
  static constexpr uint32_t kByteaOid = 17;
  static constexpr uint32_t kInt8Oid = 20;
  // And of the array types, for a statement's parameter types.
  static constexpr uint32_t kByteaArrayOid = 1001;
  static constexpr uint32_t kInt8ArrayOid = 1016;

  explicit PgBinaryArray(uint32_t element_oid) : element_oid_(element_oid) {}

  void Clear();
  void AddBytes(std::string_view bytes);  // a bytea element
  void AddInt8(int64_t value);            // an int8 element
  size_t count() const { return count_; }
  size_t byte_size() const { return body_.size(); }
  // The array as one parameter value: header (dimensions, element type) and the elements.
  void EncodeTo(std::string& out) const;

 private:
  const uint32_t element_oid_;
  std::string body_;  // each element as its 4-byte length and its bytes
  size_t count_ = 0;
};

// Big-endian (network order) integers, as PostgreSQL's binary format writes them.
void AppendBigEndian32(std::string& out, uint32_t value);
void AppendBigEndian64(std::string& out, uint64_t value);

}  // namespace verdict::cluster
