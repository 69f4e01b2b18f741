#include "policy/watchlist.h"

#include <algorithm>
#include <array>
#include <bit>
#include <unordered_map>

#include "common/hash.h"
#include "policy/name_normalizer.h"
#include "policy/similarity.h"

namespace verdict {
namespace {

constexpr size_t kMaxTokenChars = 32;  // longer tokens are indexed by their first 32 characters

// Calls `fn(hash)` for `token` and, for tokens of 4 or more characters, each string made by
// deleting one character. Hashes are never 0 (0 marks an empty slot).
template <typename F>
void ForEachVariant(std::string_view token, F&& fn) {
  token = token.substr(0, std::min(token.size(), kMaxTokenChars));
  auto hash = [](std::string_view s) { return StableHash64(s) | 1; };
  fn(hash(token));
  if (token.size() <= 3) return;
  std::array<char, kMaxTokenChars> buf;
  for (size_t i = 0; i < token.size(); ++i) {
    size_t n = 0;
    for (size_t j = 0; j < token.size(); ++j) {
      if (j != i) buf[n++] = token[j];
    }
    // Deleting either of two equal neighbours gives the same string: hash it once.
    if (i > 0 && token[i] == token[i - 1]) continue;
    fn(hash(std::string_view(buf.data(), n)));
  }
}

int Popcount8(uint8_t bits) {
  int n = 0;
  for (; bits != 0; bits &= static_cast<uint8_t>(bits - 1)) ++n;
  return n;
}

}  // namespace

namespace watchlist_internal {

struct Similar {
  uint32_t token;
  float gain;  // similarity * (query token length + list token length)
  bool same;   // similarity >= kTokenSameThreshold (counts in the token-set measure)
};

// Per-entry accumulator: 8 bytes, so one cache access per touched entry.
struct Acc {
  float gain;
  uint8_t hits;  // query tokens with a similar token in the entry
  uint8_t same;  // ... with one similar enough to count as the same token
};

struct Scratch {
  std::vector<Acc> acc;
  std::vector<uint8_t> token_skipped;  // per list token: skipped query tokens similar to it
  std::vector<uint32_t> touched;
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> owners;  // query token of each hash
  std::array<std::vector<uint32_t>, kMaxNameTokens> candidates;
  std::array<std::vector<Similar>, kMaxNameTokens> similar;
};

struct TokenStats {
  std::array<double, kMaxNameTokens> max_gain{};
  std::array<double, kMaxNameTokens> min_len{};
  std::array<size_t, kMaxNameTokens> volume{};
};

}  // namespace watchlist_internal

namespace {

using watchlist_internal::Acc;
using watchlist_internal::Scratch;
using watchlist_internal::Similar;
using watchlist_internal::TokenStats;

// 3. Skip the postings of the most frequent query tokens while an entry matched only
//    through them provably scores under kWatchlistFloor (it then cannot be reported).
uint32_t ChooseSkipped(size_t nq, double query_chars, const TokenStats& stats) {
  std::array<size_t, kMaxNameTokens> order{};
  for (size_t qi = 0; qi < nq; ++qi) order[qi] = qi;
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(nq),
            [&](size_t a, size_t b) { return stats.volume[a] > stats.volume[b]; });
  uint32_t skipped = 0;
  double skipped_gain = 0;
  int skipped_count = 0;
  double skipped_min_len = 1e9;
  for (size_t k = 0; k < nq; ++k) {
    const size_t qi = order[k];
    if (stats.volume[qi] == 0) break;
    const double gain = skipped_gain + stats.max_gain[qi];
    const int count = skipped_count + 1;
    const double len = std::min(skipped_min_len, stats.min_len[qi]);
    const double soft = std::min(1.0, gain / (query_chars + len));
    const double dice = 2.0 * count / static_cast<double>(nq + static_cast<size_t>(count));
    if (0.5 * soft + 0.5 * dice >= kWatchlistFloor) break;
    // An entry whose every token pairs with a skipped one could take the missing-part score.
    if (count >= 2 && nq <= static_cast<size_t>(count) + 1) break;
    skipped |= 1u << qi;
    skipped_gain = gain;
    skipped_count = count;
    skipped_min_len = len;
  }
  return skipped;
}

}  // namespace

std::unique_ptr<const Watchlist> Watchlist::Build(const std::vector<Input>& names) {
  std::unique_ptr<Watchlist> list(new Watchlist());
  std::unordered_map<std::string, uint32_t> token_ids;
  std::vector<std::vector<uint32_t>> postings;
  std::vector<std::string> tokens;
  list->entries_.reserve(names.size());
  for (const Input& input : names) {
    WatchlistEntry entry{input.id, input.name, NormalizeNameTokens(input.name), input.primary,
                         input.alias_kind};
    const uint32_t entry_id = static_cast<uint32_t>(list->entries_.size());
    EntryInfo info{};
    info.overflow_begin = static_cast<uint32_t>(list->entry_tokens_.size());
    info.tokens = static_cast<uint8_t>(entry.tokens.size());
    size_t chars = 0;
    for (const std::string& t : entry.tokens) {
      chars += t.size();
      auto [it, inserted] = token_ids.try_emplace(t, static_cast<uint32_t>(tokens.size()));
      if (inserted) {
        tokens.push_back(t);
        postings.emplace_back();
      }
      auto& p = postings[it->second];
      if (p.empty() || p.back() != entry_id) {
        p.push_back(entry_id);
        if (info.distinct < kInlineTokens) {
          info.token[info.distinct] = it->second;
        } else {
          list->entry_tokens_.push_back(it->second);
        }
        ++info.distinct;
      }
    }
    info.chars = static_cast<uint16_t>(std::min<size_t>(chars, 65535));
    list->info_.push_back(info);
    list->entries_.push_back(std::move(entry));
  }
  for (const std::string& t : tokens) {
    list->token_offset_.push_back(static_cast<uint32_t>(list->token_chars_.size()));
    list->token_chars_ += t;
  }
  list->token_offset_.push_back(static_cast<uint32_t>(list->token_chars_.size()));
  for (const auto& p : postings) {
    list->posting_begin_.push_back(static_cast<uint32_t>(list->postings_.size()));
    list->postings_.insert(list->postings_.end(), p.begin(), p.end());
  }
  list->posting_begin_.push_back(static_cast<uint32_t>(list->postings_.size()));

  std::vector<std::pair<uint64_t, uint32_t>> variants;
  for (uint32_t id = 0; id < tokens.size(); ++id) {
    ForEachVariant(tokens[id], [&](uint64_t h) { variants.emplace_back(h, id); });
  }
  std::sort(variants.begin(), variants.end());
  variants.erase(std::unique(variants.begin(), variants.end()), variants.end());
  size_t distinct = 0;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (i == 0 || variants[i].first != variants[i - 1].first) ++distinct;
  }
  list->slots_.assign(std::bit_ceil(std::max<size_t>(16, distinct * 2)), Slot{0, 0, 0});
  const size_t mask = list->slots_.size() - 1;
  list->variant_tokens_.reserve(variants.size());
  for (size_t i = 0; i < variants.size();) {
    size_t j = i;
    const uint32_t begin = static_cast<uint32_t>(list->variant_tokens_.size());
    while (j < variants.size() && variants[j].first == variants[i].first) {
      list->variant_tokens_.push_back(variants[j].second);
      ++j;
    }
    size_t s = variants[i].first & mask;
    while (list->slots_[s].hash != 0) s = (s + 1) & mask;
    list->slots_[s] = {variants[i].first, begin,
                       static_cast<uint32_t>(list->variant_tokens_.size())};
    i = j;
  }
  return list;
}

const Watchlist::Slot* Watchlist::FindSlot(uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t s = hash & mask;; s = (s + 1) & mask) {
    if (slots_[s].hash == hash) return &slots_[s];
    if (slots_[s].hash == 0) return nullptr;
  }
}

WatchlistMatch Watchlist::Match(std::string_view name) const {
  return MatchTokens(NormalizeNameTokens(name));
}

WatchlistMatch Watchlist::MatchTokens(const std::vector<std::string>& query) const {
  const size_t nq = std::min(query.size(), kMaxNameTokens);
  if (nq == 0 || entries_.empty()) return WatchlistMatch();
  thread_local Scratch scratch;
  if (scratch.acc.size() < entries_.size()) scratch.acc.assign(entries_.size(), Acc{0, 0, 0});
  const size_t token_count = token_offset_.size() - 1;
  if (scratch.token_skipped.size() < token_count) scratch.token_skipped.assign(token_count, 0);
  double query_chars = 0;
  for (size_t qi = 0; qi < nq; ++qi) query_chars += static_cast<double>(query[qi].size());

  FindCandidates(query, nq, scratch);
  TokenStats stats;
  CollectSimilar(query, nq, scratch, stats);
  const uint32_t skipped = ChooseSkipped(nq, query_chars, stats);
  AccumulatePostings(nq, skipped, scratch);
  if (skipped != 0) AddSkippedTokens(nq, skipped, scratch);
  return PickBest(query, nq, query_chars, scratch);
}

void Watchlist::FindCandidates(const std::vector<std::string>& query, size_t nq,
                               Scratch& scratch) const {
  // All query tokens' lookups at once, prefetched, so that their cache misses overlap.
  scratch.hashes.clear();
  scratch.owners.clear();
  for (size_t qi = 0; qi < nq; ++qi) {
    ForEachVariant(query[qi], [&](uint64_t h) {
      scratch.hashes.push_back(h);
      scratch.owners.push_back(static_cast<uint32_t>(qi));
      __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
    });
  }
  for (size_t qi = 0; qi < nq; ++qi) scratch.candidates[qi].clear();
  for (size_t k = 0; k < scratch.hashes.size(); ++k) {
    const Slot* slot = FindSlot(scratch.hashes[k]);
    if (slot == nullptr) continue;
    auto& c = scratch.candidates[scratch.owners[k]];
    for (uint32_t v = slot->begin; v < slot->end; ++v) {
      c.push_back(variant_tokens_[v]);
      __builtin_prefetch(&token_chars_[token_offset_[variant_tokens_[v]]]);
    }
  }
}

void Watchlist::CollectSimilar(const std::vector<std::string>& query, size_t nq, Scratch& scratch,
                               TokenStats& stats) const {
  for (size_t qi = 0; qi < nq; ++qi) {
    const std::string_view q = query[qi];
    auto& cands = scratch.candidates[qi];
    std::sort(cands.begin(), cands.end());
    cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
    auto& similar = scratch.similar[qi];
    similar.clear();
    stats.min_len[qi] = 1e9;
    for (uint32_t token_id : cands) {
      const std::string_view t(token_chars_.data() + token_offset_[token_id],
                               token_offset_[token_id + 1] - token_offset_[token_id]);
      const double s = TokenSimilarity(q, t);
      if (s <= 0) continue;
      const double gain = s * static_cast<double>(q.size() + t.size());
      similar.push_back({token_id, static_cast<float>(gain), s >= kTokenSameThreshold});
      stats.max_gain[qi] = std::max(stats.max_gain[qi], gain);
      stats.min_len[qi] = std::min(stats.min_len[qi], static_cast<double>(t.size()));
      stats.volume[qi] += posting_begin_[token_id + 1] - posting_begin_[token_id];
    }
  }
}

void Watchlist::AccumulatePostings(size_t nq, uint32_t skipped, Scratch& scratch) const {
  scratch.touched.clear();
  Acc* acc = scratch.acc.data();
  for (size_t qi = 0; qi < nq; ++qi) {
    if (skipped & (1u << qi)) continue;
    const uint8_t bit = static_cast<uint8_t>(1u << qi);
    for (const Similar& sim : scratch.similar[qi]) {
      const uint32_t begin = posting_begin_[sim.token];
      const uint32_t end = posting_begin_[sim.token + 1];
      for (uint32_t p = begin; p < end; ++p) {
        if (p + 8 < end) __builtin_prefetch(&acc[postings_[p + 8]]);
        Acc& a = acc[postings_[p]];
        if (a.hits == 0) scratch.touched.push_back(postings_[p]);
        a.gain += sim.gain;
        a.hits |= bit;
        if (sim.same) a.same |= bit;
      }
    }
  }
  for (uint32_t e : scratch.touched) __builtin_prefetch(&info_[e]);
}

void Watchlist::AddSkippedTokens(size_t nq, uint32_t skipped, Scratch& scratch) const {
  // Each touched entry's few tokens are looked up in the skipped tokens' similar sets.
  Acc* acc = scratch.acc.data();
  for (size_t qi = 0; qi < nq; ++qi) {
    if (!(skipped & (1u << qi))) continue;
    for (const Similar& sim : scratch.similar[qi]) {
      scratch.token_skipped[sim.token] |= static_cast<uint8_t>(1u << qi);
    }
  }
  for (uint32_t e : scratch.touched) {
    const EntryInfo& info = info_[e];
    for (uint32_t k = 0; k < info.distinct; ++k) {
      const uint32_t t = k < kInlineTokens ? info.token[k]
                                           : entry_tokens_[info.overflow_begin + k - kInlineTokens];
      uint8_t bits = scratch.token_skipped[t];
      while (bits != 0) {
        const int qi = std::countr_zero(bits);
        bits &= static_cast<uint8_t>(bits - 1);
        const auto& similar = scratch.similar[qi];
        auto it = std::lower_bound(similar.begin(), similar.end(), t,
                                   [](const Similar& s, uint32_t id) { return s.token < id; });
        acc[e].gain += it->gain;
        acc[e].hits |= static_cast<uint8_t>(1u << qi);
        if (it->same) acc[e].same |= static_cast<uint8_t>(1u << qi);
      }
    }
  }
  for (size_t qi = 0; qi < nq; ++qi) {
    if (!(skipped & (1u << qi))) continue;
    for (const Similar& sim : scratch.similar[qi]) scratch.token_skipped[sim.token] = 0;
  }
}

WatchlistMatch Watchlist::PickBest(const std::vector<std::string>& query, size_t nq,
                                   double query_chars, Scratch& scratch) const {
  // An upper bound of each touched entry's NameScore (every similar pair counted, not only the
  // one-to-one alignment); exact scores only where the bound can beat both the best so far and
  // the floor.
  Acc* acc = scratch.acc.data();
  auto bound = [&](uint32_t e) {
    const double total = query_chars + info_[e].chars;
    const double soft = std::min(1.0, acc[e].gain / total);
    const double dice =
        std::min(1.0, 2.0 * Popcount8(acc[e].same) / static_cast<double>(nq + info_[e].tokens));
    double b = 0.5 * soft + 0.5 * dice + 1e-6;
    const size_t paired = static_cast<size_t>(Popcount8(acc[e].same));
    if (MissingPartApplies(nq, info_[e].tokens, std::min<size_t>(paired, info_[e].tokens))) {
      b = std::max(b, kMissingPartScore + 1e-6);
    }
    const size_t entry_tokens = info_[e].tokens;
    if (paired >= 2 && paired < entry_tokens && paired < nq) {
      // Two tokens agree: the others may still be similar beyond one edit (Sergeyevich /
      // sergeevic), which the deletion neighbourhood did not find. Bound them as if the
      // unfound query tokens paired perfectly with the entry's unpaired ones; entries sharing
      // two tokens with a query are few, so this costs a few exact scores, not a scan.
      std::array<double, kMaxNameTokens> unfound_len{};
      size_t unfound = 0;
      for (size_t qi = 0; qi < nq; ++qi) {
        if (!(acc[e].hits & (1u << qi)))
          unfound_len[unfound++] = static_cast<double>(query[qi].size());
      }
      const size_t open = std::min(unfound, entry_tokens - paired);
      // The longest first (insertion sort: at most 8).
      for (size_t k = 1; k < unfound; ++k) {
        for (size_t m = k; m > 0 && unfound_len[m - 1] < unfound_len[m]; --m) {
          std::swap(unfound_len[m - 1], unfound_len[m]);
        }
      }
      double open_gain = 0;
      for (size_t k = 0; k < open; ++k) open_gain += 2 * unfound_len[k];
      const double soft_open = std::min(1.0, (acc[e].gain + open_gain) / total);
      const double dice_open = std::min(
          1.0, 2.0 * static_cast<double>(paired + open) / static_cast<double>(nq + entry_tokens));
      b = std::max(b, 0.5 * soft_open + 0.5 * dice_open + 1e-6);
    }
    return b;
  };
  uint32_t top = 0;
  double top_bound = -1;
  for (uint32_t e : scratch.touched) {
    const double b = bound(e);
    if (b > top_bound || (b == top_bound && e < top)) {
      top_bound = b;
      top = e;
    }
  }
  WatchlistMatch best;
  if (top_bound >= kWatchlistFloor) {
    best = {NameScore(query, entries_[top].tokens), static_cast<int>(top)};
    for (uint32_t e : scratch.touched) {
      if (e == top) continue;
      const double b = bound(e);
      if (b < best.score || b < kWatchlistFloor) continue;
      const double s = NameScore(query, entries_[e].tokens);
      if (s > best.score || (s == best.score && static_cast<int>(e) < best.entry)) {
        best = {s, static_cast<int>(e)};
      }
    }
  }
  for (uint32_t e : scratch.touched) acc[e] = Acc{0, 0, 0};
  if (best.score < kWatchlistFloor) best = WatchlistMatch();
  return best;
}

}  // namespace verdict
