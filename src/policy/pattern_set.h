// PatternSet: a list of regular expressions compiled into one Hyperscan block-mode database,
// matched case-insensitively against free text (remittance information).
// Immutable after Compile; thread-safe: each thread scans with its own Hyperscan scratch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

struct hs_database;

namespace verdict {

class PatternSet {
 public:
  // Compiles `patterns` (Hyperscan's PCRE subset; caseless, '.' matches newlines). On a bad
  // pattern, the error names its index in `bad_index` and says what Hyperscan expected.
  static Result<std::unique_ptr<const PatternSet>> Compile(const std::vector<std::string>& patterns,
                                                           int* bad_index = nullptr);
  ~PatternSet();
  PatternSet(const PatternSet&) = delete;
  PatternSet& operator=(const PatternSet&) = delete;

  // Index of the lowest-numbered pattern that matches `text`, or -1. Texts beyond
  // kMaxTextBytes are scanned up to that length.
  int FirstMatch(std::string_view text) const;

  const std::vector<std::string>& patterns() const { return patterns_; }

  static constexpr size_t kMaxTextBytes = 4096;

 private:
  PatternSet() = default;

  std::vector<std::string> patterns_;
  hs_database* database_ = nullptr;
  uint64_t id_ = 0;  // process-unique, to know when a thread's scratch must grow
};

}  // namespace verdict
