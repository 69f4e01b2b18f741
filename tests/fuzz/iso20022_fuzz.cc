// libFuzzer target for the ISO 20022 decoder: any bytes must give a message (whose items
// each hold a transaction or an error naming an element path) or an error, never a crash,
// and within the limits (no more transactions than allowed).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/iso20022.h"
#include "formats/message_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  verdict::XmlLimits limits;
  limits.max_transactions = 8;
  auto message = verdict::DecodeIso20022(input, limits);
  if (message.ok()) {
    if (message->transactions.size() > limits.max_transactions) __builtin_trap();
    for (const auto& item : message->transactions) {
      if (item.ok()) {
        if (item->transaction_id.empty() || item->sender.ref.account.empty() ||
            item->receiver.ref.account.empty() || item->amount.minor_units() <= 0) {
          __builtin_trap();
        }
      } else if (item.status().field().empty() || item.status().field()[0] != '/') {
        __builtin_trap();  // every per-transaction error names its element path
      }
    }
  }
  // The same bytes as a file of concatenated documents.
  auto file =
      verdict::PaymentMessageFile::FromString(std::string(input), verdict::CsvFormat::kIso20022);
  if (file.ok()) {
    size_t line = 0;
    for (int i = 0; i < 64 && (*file)->Next(&line); ++i) {
    }
  }
  return 0;
}
