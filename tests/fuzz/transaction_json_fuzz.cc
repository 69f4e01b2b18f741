// libFuzzer target: the JSON transaction decoder (one object and batch envelopes) must never
// crash, hang or leak on any input, and whatever it accepts must re-encode canonically.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/transaction_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static verdict::TransactionDecoder decoder;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto one = decoder.DecodeOne(input);
  if (one.ok()) {
    std::string canonical = verdict::CanonicalTransactionJson(*one);
    // The canonical form is itself a valid transaction that decodes to the same canonical form.
    auto again = decoder.DecodeOne(canonical);
    if (!again.ok() || verdict::CanonicalTransactionJson(*again) != canonical) __builtin_trap();
  }
  auto batch = decoder.DecodeBatch(input, 1000);
  (void)batch;
  return 0;
}
