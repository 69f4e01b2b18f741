#include "cluster/pg_binary_array.h"

#include <gtest/gtest.h>

#include <string>

namespace verdict::cluster {
namespace {

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(PgBinaryArrayTest, EncodesOneDimensionWithLengthsAndElementType) {
  PgBinaryArray array(PgBinaryArray::kByteaOid);
  array.AddBytes("ab");
  array.AddBytes("");
  std::string out;
  array.EncodeTo(out);
  EXPECT_EQ(out, Bytes({0, 0, 0, 1, 0,   0,   0, 0, 0, 0, 0, 17,  // dimensions, no nulls, bytea
                        0, 0, 0, 2, 0,   0,   0, 1,               // two elements from index 1
                        0, 0, 0, 2, 'a', 'b', 0, 0, 0, 0}));
  EXPECT_EQ(array.count(), 2u);
}

TEST(PgBinaryArrayTest, Int8ElementsAreBigEndian) {
  PgBinaryArray array(PgBinaryArray::kInt8Oid);
  array.AddInt8(0x0102030405060708);
  array.AddInt8(-1);
  std::string out;
  array.EncodeTo(out);
  EXPECT_EQ(out.substr(20), Bytes({0, 0, 0, 8, 1,  2,  3,  4,  5,  6,  7,  8,  //
                                   0, 0, 0, 8, -1, -1, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(out.substr(8, 4), Bytes({0, 0, 0, 20}));
}

TEST(PgBinaryArrayTest, EmptyArrayHasNoDimensionsAndClearStartsOver) {
  PgBinaryArray array(PgBinaryArray::kByteaOid);
  array.AddBytes("x");
  array.Clear();
  std::string out;
  array.EncodeTo(out);
  EXPECT_EQ(out, Bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 17}));
  EXPECT_EQ(array.count(), 0u);
}

}  // namespace
}  // namespace verdict::cluster
