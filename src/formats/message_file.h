// PaymentMessageFile: the transactions of a file of payment messages, one message decoded at
// a time: ISO 20022 (one document, or several concatenated, each starting with its
// "<?xml" declaration) or SWIFT MT (messages separated by '$' or starting at "{1:").
// Owns the file's text; not thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/transaction.h"
#include "formats/payment_message.h"
#include "formats/row_parser.h"

namespace verdict {

// kIso20022 when `head` (the first bytes of a file) starts, after a BOM and blank space,
// with '<'; kSwiftMt when it starts with "{1:" or '$'; nullopt otherwise.
std::optional<CsvFormat> SniffPaymentMessageFormat(std::string_view head);

class PaymentMessageFile {
 public:
  // `format` is kIso20022 or kSwiftMt.
  static Result<std::unique_ptr<PaymentMessageFile>> FromString(
      std::string data, CsvFormat format, const PaymentMessageOptions& options = {});

  // The next transaction or per-item error, with the 1-based line of the file where its
  // message starts in *line; nullopt at the end. A message that fails as a whole yields one
  // error item.
  std::optional<Result<Transaction>> Next(size_t* line);

  size_t messages() const { return chunks_.size(); }

 private:
  PaymentMessageFile() = default;
  void DecodeChunk(size_t index);

  struct Chunk {
    size_t begin = 0;
    size_t end = 0;
    size_t line = 1;
  };
  std::string data_;
  CsvFormat format_ = CsvFormat::kIso20022;
  PaymentMessageOptions options_;
  std::vector<Chunk> chunks_;
  size_t next_chunk_ = 0;
  std::vector<Result<Transaction>> pending_;
  size_t pending_next_ = 0;
  size_t pending_line_ = 1;
};

}  // namespace verdict
