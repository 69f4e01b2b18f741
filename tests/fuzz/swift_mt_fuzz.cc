// libFuzzer target for the SWIFT MT decoder: any bytes, split into messages and decoded,
// must give transactions or errors naming a tag or block, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/swift_mt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  verdict::MtLimits limits;
  limits.max_messages = 16;
  auto chunks = verdict::SplitMtMessages(input, limits);
  if (!chunks.ok()) return 0;
  if (chunks->size() > limits.max_messages) __builtin_trap();
  for (const verdict::MtChunk& chunk : *chunks) {
    if (chunk.text.data() < input.data() ||
        chunk.text.data() + chunk.text.size() > input.data() + input.size()) {
      __builtin_trap();
    }
    auto txn = verdict::DecodeSwiftMt(chunk.text, chunk.first_line, limits);
    if (txn.ok()) {
      if (txn->transaction_id.empty() || txn->sender.ref.account.empty() ||
          txn->receiver.ref.account.empty() || txn->amount.minor_units() <= 0) {
        __builtin_trap();
      }
    } else if (txn.status().field().empty()) {
      __builtin_trap();  // every error names the tag or block it concerns
    }
  }
  return 0;
}
