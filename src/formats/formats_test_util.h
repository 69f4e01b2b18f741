// Helpers shared by the formats tests: a one-place text substitution for corrupting samples and
// reading a TransactionReader to its end. Test-only; stateless. (Shared rather than repeated:
// the tests of a folder are built as one translation unit.)
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "formats/transaction_reader.h"

namespace verdict::testing_util {

// `text` with its first `from` replaced by `to`; a `from` that is not there fails the test.
inline std::string ReplaceOnce(std::string_view text, std::string_view from, std::string_view to) {
  std::string s(text);
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// Every transaction `reader` yields, to its end or its first error (which fails the test).
inline std::vector<LabelledTransaction> ReadAll(TransactionReader& reader) {
  std::vector<LabelledTransaction> out;
  LabelledTransaction t;
  while (true) {
    auto more = reader.Next(&t);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !*more) break;
    out.push_back(t);
  }
  return out;
}

}  // namespace verdict::testing_util
