// Name normalization for screening: transliterates any script to Latin ASCII (ICU
// "Any-Latin; Latin-ASCII"), lower-cases, drops diacritics and punctuation, splits into
// tokens and sorts them, so "Müller, José" and "jose MULLER" normalize alike.
// Stateless functions; thread-safe (each thread uses its own ICU transliterator clone).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace verdict {

// Names longer than this (bytes) are cut before normalization; tokens past the limit dropped.
inline constexpr size_t kMaxNameBytes = 256;
inline constexpr size_t kMaxNameTokens = 8;

// The sorted lower-case ASCII tokens of `name` (at most kMaxNameTokens). Apostrophes join
// ("O'Brien" → "obrien"); every other non-alphanumeric character separates tokens.
std::vector<std::string> NormalizeNameTokens(std::string_view name);

// The tokens joined by single spaces: the canonical form used for display and exact keys.
std::string NormalizeName(std::string_view name);

}  // namespace verdict
