#include "reports/markup_text.h"

#include <gtest/gtest.h>

namespace verdict::reports {
namespace {

TEST(MarkupTextTest, EscapesTheFiveMarkupCharacters) {
  EXPECT_EQ(Escaped("a & b < c > d \" e ' f"), "a &amp; b &lt; c &gt; d &quot; e &#39; f");
  EXPECT_EQ(Escaped("Müller €"), "Müller €");
}

TEST(MarkupTextTest, ReplacesWhatXmlCannotHold) {
  // Tab, line feed and carriage return stay; other controls and invalid UTF-8 become U+FFFD.
  EXPECT_EQ(Escaped("a\tb\nc\rd"), "a\tb\nc\rd");
  EXPECT_EQ(Escaped(std::string("x\x01y", 3)), "x\xEF\xBF\xBDy");
  EXPECT_EQ(Escaped(std::string("x\0y", 3)), "x\xEF\xBF\xBDy");
  EXPECT_EQ(Escaped("x\xC3y"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(Escaped("x\xEF\xBF\xBEy\xEF\xBF\xBF"), "x\xEF\xBF\xBDy\xEF\xBF\xBD");
}

TEST(MarkupTextTest, TruncatesByCharactersNeverSplittingOne) {
  EXPECT_EQ(TruncateChars("abc", 3), "abc");
  EXPECT_EQ(TruncateChars("abcd", 3), "ab\xE2\x80\xA6");
  EXPECT_EQ(TruncateChars("üüüü", 3), "üü\xE2\x80\xA6");
  EXPECT_EQ(TruncateChars("", 3), "");
}

}  // namespace
}  // namespace verdict::reports
