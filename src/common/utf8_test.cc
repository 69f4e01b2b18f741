#include "common/utf8.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

TEST(Utf8Test, WellFormedTextIsKept) {
  for (std::string_view text : {"", "plain ASCII", "caf\xC3\xA9", "\xE2\x82\xAC 5",
                                "\xF0\x9F\x92\xB6", "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF"}) {
    EXPECT_EQ(ReplaceInvalidUtf8(text), text);
  }
}

TEST(Utf8Test, EachBadByteBecomesOneReplacement) {
  const std::string r(kReplacement);
  EXPECT_EQ(ReplaceInvalidUtf8("a\xFF"
                               "b"),
            "a" + r + "b");
  // A sequence cut short (a key truncated mid-character), at the end and inside.
  EXPECT_EQ(ReplaceInvalidUtf8("caf\xC3"), "caf" + r);
  EXPECT_EQ(ReplaceInvalidUtf8("\xE2\x82"
                               "x"),
            r + r + "x");
  // Overlong forms, surrogates, above U+10FFFF, a lone continuation byte.
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAF"), r + r);
  EXPECT_EQ(ReplaceInvalidUtf8("\xE0\x80\xAF"), r + r + r);
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"), r + r + r);
  EXPECT_EQ(ReplaceInvalidUtf8("\xF4\x90\x80\x80"), r + r + r + r);
  EXPECT_EQ(ReplaceInvalidUtf8("\x80"), r);
}

}  // namespace
}  // namespace verdict
