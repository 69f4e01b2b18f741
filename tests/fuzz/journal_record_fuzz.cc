// libFuzzer target: the journal's stored-entry and record-payload decoders (and the checkpoint,
// head and Merkle frontier decoders) must never crash, hang or over-allocate on any bytes, and a
// payload they accept must re-encode to exactly the same bytes (the encoding is canonical).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "journal/checkpoint.h"
#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/record.h"
#include "journal/stored_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace verdict::journal;
  std::string_view input(reinterpret_cast<const char*>(data), size);

  JournalRecord record;
  if (DecodeRecordPayload(input, record).ok()) {
    std::string again;
    EncodeRecordPayload(record, again);
    if (again != input) __builtin_trap();
  }

  // The same bytes as a stored entry: framing and hash check, then the payload inside.
  auto stored = DecodeStoredEntry(input, nullptr);
  (void)stored;
  // And wrapped in valid framing, so the fuzzer reaches the payload decoder through the entry.
  std::string framed;
  EncodeEntry(1, 0, kGenesisHash, input, framed);
  auto from_framed = DecodeStoredEntry(framed, nullptr);
  if (from_framed.ok() && from_framed->seq != 1) __builtin_trap();

  (void)DecodeCheckpoint(input);
  (void)DecodeHead(input);
  (void)CompactMerkle::Deserialize(input);
  return 0;
}
