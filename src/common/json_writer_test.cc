#include "common/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace verdict {
namespace {

TEST(JsonWriterTest, WritesNestedValuesWithCommas) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("a").Int(-1).Key("b").BeginArray().Uint(2).Bool(true).Null().EndArray();
  w.Key("c").BeginObject().EndObject().Key("d").Double(0.1).EndObject();
  EXPECT_EQ(out, R"({"a":-1,"b":[2,true,null],"c":{},"d":0.1})");
}

TEST(JsonWriterTest, EscapesStringsAndRefusesNonFiniteNumbers) {
  std::string out;
  JsonWriter w(out);
  w.BeginArray().String("q\"\\\n\x01 é").Double(NAN).Double(INFINITY).EndArray();
  EXPECT_EQ(out, "[\"q\\\"\\\\\\n\\u0001 é\",null,null]");
}

}  // namespace
}  // namespace verdict
