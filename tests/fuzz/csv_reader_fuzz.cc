// libFuzzer target for the CSV transaction readers: any bytes, read as each format (detected
// from the header, and forced), must give rows or counted bad rows, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/transaction_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (verdict::CsvFormat format :
       {verdict::CsvFormat::kAuto, verdict::CsvFormat::kVerdict, verdict::CsvFormat::kAmlSimLog,
        verdict::CsvFormat::kAmlWorld}) {
    verdict::ReaderOptions options;
    options.format = format;
    auto reader = verdict::TransactionReader::FromString(input, options);
    if (!reader.ok()) continue;
    verdict::LabelledTransaction t;
    size_t good = 0;
    while (true) {
      auto more = (*reader)->Next(&t);
      if (!more.ok() || !*more) break;
      ++good;
    }
    const verdict::ReadStats& stats = (*reader)->stats();
    if (stats.good_rows != good || stats.good_rows + stats.bad_rows != stats.rows) __builtin_trap();
  }
  return 0;
}
