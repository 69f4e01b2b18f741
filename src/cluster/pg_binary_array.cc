#include "cluster/pg_binary_array.h"

namespace verdict::cluster {

void AppendBigEndian32(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void AppendBigEndian64(std::string& out, uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void PgBinaryArray::Clear() {
  body_.clear();
  count_ = 0;
}

void PgBinaryArray::AddBytes(std::string_view bytes) {
  AppendBigEndian32(body_, static_cast<uint32_t>(bytes.size()));
  body_.append(bytes);
  ++count_;
}

void PgBinaryArray::AddInt8(int64_t value) {
  AppendBigEndian32(body_, 8);
  AppendBigEndian64(body_, static_cast<uint64_t>(value));
  ++count_;
}

void PgBinaryArray::EncodeTo(std::string& out) const {
  out.clear();
  // array_recv's layout: dimensions, has-nulls flag, element type, then per dimension its
  // length and lower bound. An empty array has no dimensions.
  AppendBigEndian32(out, count_ == 0 ? 0 : 1);
  AppendBigEndian32(out, 0);
  AppendBigEndian32(out, element_oid_);
  if (count_ != 0) {
    AppendBigEndian32(out, static_cast<uint32_t>(count_));
    AppendBigEndian32(out, 1);
  }
  out.append(body_);
}

}  // namespace verdict::cluster
