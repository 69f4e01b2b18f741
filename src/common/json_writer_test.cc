#include "common/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

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

// Every byte value, alone and between runs of plain text, against a one-character-at-a-time
// reference: runs are appended whole, so their edges are where a slip would show.
TEST(JsonWriterTest, EscapesEveryByteAsTheReferenceDoes) {
  auto reference = [](std::string_view value) {
    const std::map<unsigned char, std::string> escapes = {
        {'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"},
        {'\t', "\\t"}, {'\b', "\\b"},  {'\f', "\\f"}};
    std::string out = "\"";
    for (unsigned char c : value) {
      if (auto it = escapes.find(c); it != escapes.end()) {
        out += it->second;
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  for (int c = 0; c < 256; ++c) {
    const std::string byte(1, static_cast<char>(c));
    for (const std::string& value : {byte, "ab" + byte, byte + "cd", "ab" + byte + "cd" + byte}) {
      std::string out;
      AppendJsonString(out, value);
      EXPECT_EQ(out, reference(value)) << "byte " << c;
    }
  }
  std::string empty;
  AppendJsonString(empty, "");
  EXPECT_EQ(empty, "\"\"");
}

}  // namespace
}  // namespace verdict
