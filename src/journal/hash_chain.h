// The stored form of a journal entry: a framed payload linked to its predecessor by SHA-256
// (docs/journal_format.md §3). Stateless functions; thread-safe. DecodeEntry is strict and
// never crashes on arbitrary bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "journal/digest.h"

namespace verdict::journal {

inline constexpr std::string_view kEntryMagic = "VJE1";
inline constexpr uint8_t kEntryFlagEncrypted = 0x01;
// The prev_hash of record 1.
inline constexpr Digest kGenesisHash{};
// magic + flags + seq + prev_hash + payload length, and the trailing record hash.
inline constexpr size_t kEntryHeaderBytes = 4 + 1 + 8 + 32 + 4;
inline constexpr size_t kEntryOverheadBytes = kEntryHeaderBytes + 32;

struct EntryView {
  uint64_t seq = 0;
  uint8_t flags = 0;
  Digest prev_hash{};
  std::string_view payload;  // points into the decoded buffer
  Digest record_hash{};
};

// Appends the entry to `out` and returns its record hash = SHA-256(every byte before it).
Digest EncodeEntry(uint64_t seq, uint8_t flags, const Digest& prev_hash, std::string_view payload,
                   std::string& out);

// Checks framing, flags and that the stored record hash matches the bytes. Linkage to the
// previous entry is the caller's check (it knows the previous hash).
Result<EntryView> DecodeEntry(std::string_view stored);

}  // namespace verdict::journal
