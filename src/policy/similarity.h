// String similarity for screening: Jaro-Winkler over ASCII tokens and the token-level name
// score built on it (see docs/policy.md, "Screening"). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace verdict {

// Jaro-Winkler similarity in [0,1] (prefix scale 0.1, prefix up to 4). Inputs of at most
// 64 bytes are compared in full; longer ones are cut to 64.
double JaroWinkler(std::string_view a, std::string_view b);

// Token pair similarity: JW, but a token of 1-2 characters must be equal and one of 3 needs
// JW >= kTokenSameThreshold (JW inflates short strings: "kim"/"kin" 0.82); other pairs under
// kTokenMatchFloor count as unrelated (0).
double TokenSimilarity(std::string_view a, std::string_view b);
inline constexpr double kTokenMatchFloor = 0.80;
// A token pair at or above this similarity counts as the same token in the token-set measure.
inline constexpr double kTokenSameThreshold = 0.90;

// Name score in [0,1] between two normalized token lists (NormalizeNameTokens):
// 0.5 * aligned JW (tokens paired one-to-one, greedy by similarity, each pair weighted by
// its characters, unpaired tokens count 0) + 0.5 * token-set Dice (2·|paired ≥ 0.9| /
// (|a| + |b|)). Symmetric; 1 exactly for the same token multiset.
// A missing part (a middle name, a second surname) scores at least kMissingPartScore × the
// pairs' weighted similarity: when the shorter name has 2 or more tokens, the longer one has
// exactly one more, and every token of the shorter pairs at kMissingPartTokenFloor or above
// ("John Smith" / "John Michael Smith" 0.90: a review, not a block, at the usual thresholds).
double NameScore(const std::vector<std::string>& a, const std::vector<std::string>& b);
inline constexpr double kMissingPartScore = 0.90;
inline constexpr double kMissingPartTokenFloor = 0.95;
// Whether token counts `n`, `m` with `pairs` similar pairs can take the missing-part score.
inline bool MissingPartApplies(size_t n, size_t m, size_t pairs) {
  const size_t shorter = n < m ? n : m;
  return shorter >= 2 && n + m == 2 * shorter + 1 && pairs == shorter;
}

}  // namespace verdict
