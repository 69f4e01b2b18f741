// Watchlist: a screened list of names (sanctions, PEPs) with a token index, answering "best
// similarity of this name against the list" in microseconds for 100,000 names.
// Immutable after Build; thread-safe (per-thread scratch for the candidate accumulator).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace verdict {

namespace watchlist_internal {
struct Scratch;     // a thread's buffers for one match (watchlist.cc)
struct TokenStats;  // per query token: best gain, shortest similar token, postings volume
}  // namespace watchlist_internal

// Similarities under this floor are reported as 0 ("no similar entry"): they are far below
// any screening threshold, and the index prunes by it.
inline constexpr double kWatchlistFloor = 0.70;

// One name of a list target: its primary name, or one of its aliases (then `primary` holds
// the target's primary name and `alias_kind` how the publisher qualifies the alias).
struct WatchlistEntry {
  std::string id;                   // the list's own identifier, reported in reasons
  std::string name;                 // as listed
  std::vector<std::string> tokens;  // NormalizeNameTokens(name)
  std::string primary;              // "" for a primary name
  std::string alias_kind;           // "aka", "fka", "low", ...; "" for a primary name
};

struct WatchlistMatch {
  double score = 0;  // NameScore in [0,1]: 0, or at least kWatchlistFloor
  int entry = -1;    // index into entries(), -1 when score is 0
};

class Watchlist {
 public:
  struct Input {
    std::string id;
    std::string name;
    std::string primary = {};     // set for an alias: the target's primary name
    std::string alias_kind = {};  // set for an alias
  };
  static std::unique_ptr<const Watchlist> Build(const std::vector<Input>& names);

  // Best NameScore of `name` over the entries that share with it at least one token within
  // edit distance 1 (found through a deletion neighbourhood; tokens of up to 3 characters
  // exactly), or 0 when that best is under kWatchlistFloor. Ties go to the earlier entry.
  WatchlistMatch Match(std::string_view name) const;
  // The same for tokens already normalized.
  WatchlistMatch MatchTokens(const std::vector<std::string>& tokens) const;

  const std::vector<WatchlistEntry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }

 private:
  Watchlist() = default;

  // Packed per-entry data the query loop reads: one 32-byte cache access per entry.
  static constexpr size_t kInlineTokens = 6;
  struct alignas(32) EntryInfo {
    uint32_t token[kInlineTokens];  // the first distinct token ids
    uint32_t overflow_begin;        // the others, in entry_tokens_
    uint16_t chars;                 // total token characters
    uint8_t tokens;                 // token count
    uint8_t distinct;               // distinct token count
  };
  // Open-addressing slot of the deletion-neighbourhood table: variant hash → token ids.
  struct Slot {
    uint64_t hash;  // 0: empty
    uint32_t begin;
    uint32_t end;
  };
  const Slot* FindSlot(uint64_t hash) const;

  // MatchTokens' steps, in order, on the thread's scratch; `nq` query tokens are used.
  // 1. The list tokens within edit distance 1 of each query token (deletion neighbourhoods).
  void FindCandidates(const std::vector<std::string>& query, size_t nq,
                      watchlist_internal::Scratch& scratch) const;
  // 2. Of those, the similar ones, with the gain each can give and the postings it touches.
  void CollectSimilar(const std::vector<std::string>& query, size_t nq,
                      watchlist_internal::Scratch& scratch,
                      watchlist_internal::TokenStats& stats) const;
  // 4. Adds the postings of every query token not in `skipped` to the touched entries.
  void AccumulatePostings(size_t nq, uint32_t skipped, watchlist_internal::Scratch& scratch) const;
  // 5. Adds what the skipped query tokens contribute to each touched entry.
  void AddSkippedTokens(size_t nq, uint32_t skipped, watchlist_internal::Scratch& scratch) const;
  // 6. The best exact score among the touched entries whose upper bound can win.
  WatchlistMatch PickBest(const std::vector<std::string>& query, size_t nq, double query_chars,
                          watchlist_internal::Scratch& scratch) const;

  std::vector<WatchlistEntry> entries_;
  std::vector<EntryInfo> info_;
  std::vector<uint32_t> entry_tokens_;
  // Distinct tokens in one arena: token i is token_chars_[token_offset_[i], token_offset_[i+1]).
  std::string token_chars_;
  std::vector<uint32_t> token_offset_;
  // Postings: token id → entry ids, as CSR.
  std::vector<uint32_t> posting_begin_;
  std::vector<uint32_t> postings_;
  std::vector<Slot> slots_;  // power-of-two size
  std::vector<uint32_t> variant_tokens_;
};

}  // namespace verdict
