#include "policy/similarity.h"

#include <algorithm>
#include <array>

#include "policy/name_normalizer.h"

namespace verdict {

double JaroWinkler(std::string_view a, std::string_view b) {
  constexpr size_t kMax = 64;
  a = a.substr(0, std::min(a.size(), kMax));
  b = b.substr(0, std::min(b.size(), kMax));
  if (a.empty() && b.empty()) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  if (a == b) return 1.0;
  const int la = static_cast<int>(a.size());
  const int lb = static_cast<int>(b.size());
  const int window = std::max(0, std::max(la, lb) / 2 - 1);
  std::array<bool, kMax> a_matched{};
  std::array<bool, kMax> b_matched{};
  int matches = 0;
  for (int i = 0; i < la; ++i) {
    const int lo = std::max(0, i - window);
    const int hi = std::min(lb - 1, i + window);
    for (int j = lo; j <= hi; ++j) {
      if (!b_matched[j] && a[i] == b[j]) {
        a_matched[i] = b_matched[j] = true;
        ++matches;
        break;
      }
    }
  }
  if (matches == 0) return 0.0;
  int transpositions = 0;
  for (int i = 0, j = 0; i < la; ++i) {
    if (!a_matched[i]) continue;
    while (!b_matched[j]) ++j;
    if (a[i] != b[j]) ++transpositions;
    ++j;
  }
  const double m = matches;
  const double jaro = (m / la + m / lb + (m - transpositions / 2.0) / m) / 3.0;
  int prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a[prefix] == b[prefix]) ++prefix;
  return jaro + prefix * 0.1 * (1.0 - jaro);
}

double TokenSimilarity(std::string_view a, std::string_view b) {
  const size_t shorter = std::min(a.size(), b.size());
  if (shorter <= 2) return a == b ? 1.0 : 0.0;
  double s = JaroWinkler(a, b);
  return s >= (shorter == 3 ? kTokenSameThreshold : kTokenMatchFloor) ? s : 0.0;
}

double NameScore(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) return 0.0;
  const size_t n = std::min(a.size(), kMaxNameTokens);
  const size_t m = std::min(b.size(), kMaxNameTokens);
  std::array<std::array<double, kMaxNameTokens>, kMaxNameTokens> sim{};
  double total_chars = 0;
  for (size_t i = 0; i < n; ++i) total_chars += a[i].size();
  for (size_t j = 0; j < m; ++j) total_chars += b[j].size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) sim[i][j] = TokenSimilarity(a[i], b[j]);
  }
  uint32_t used_a = 0;
  uint32_t used_b = 0;
  double aligned = 0;
  double paired_chars = 0;
  double lowest_pair = 1;
  size_t pairs = 0;
  int same = 0;
  while (true) {
    double best = 0;
    size_t bi = 0;
    size_t bj = 0;
    for (size_t i = 0; i < n; ++i) {
      if (used_a & (1u << i)) continue;
      for (size_t j = 0; j < m; ++j) {
        if (!(used_b & (1u << j)) && sim[i][j] > best) {
          best = sim[i][j];
          bi = i;
          bj = j;
        }
      }
    }
    if (best <= 0) break;
    used_a |= 1u << bi;
    used_b |= 1u << bj;
    aligned += best * static_cast<double>(a[bi].size() + b[bj].size());
    paired_chars += static_cast<double>(a[bi].size() + b[bj].size());
    lowest_pair = std::min(lowest_pair, best);
    ++pairs;
    if (best >= kTokenSameThreshold) ++same;
  }
  const double soft = aligned / total_chars;
  const double dice = 2.0 * same / static_cast<double>(n + m);
  const double score = 0.5 * soft + 0.5 * dice;
  if (MissingPartApplies(n, m, pairs) && lowest_pair >= kMissingPartTokenFloor) {
    return std::max(score, kMissingPartScore * aligned / paired_chars);
  }
  return score;
}

}  // namespace verdict
