// TransactionReader: a stream of LabelledTransactions from a CSV file (plain or gzip), an
// unpacked AMLSim sample folder (nodes.csv + transactions.csv), or a file of payment messages
// (ISO 20022 XML, SWIFT MT; see formats/message_file.h), in file order. The format is
// detected from the header or the first bytes unless ReaderOptions::format says otherwise.
// Bad rows (for messages: bad transactions or messages) are skipped, counted and reported
// with their line numbers. Owns its input; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/result.h"
#include "formats/labelled_transaction.h"
#include "formats/line_source.h"
#include "formats/message_file.h"
#include "formats/row_parser.h"

namespace verdict {

struct ReaderOptions {
  std::string path;  // a CSV file (.csv or .csv.gz), an AMLSim folder, or a message file
  CsvFormat format = CsvFormat::kAuto;
  int64_t amlsim_epoch_us = int64_t{1'767'225'600} * 1'000'000;  // 2026-01-01T00:00:00Z
  std::string amlsim_currency = "USD";
  size_t max_reported_bad_rows = 100;
  // Payment message files: per-document limits, larger than on the wire (a replayed file may
  // hold a day's pacs.008 batch), and the bound on the whole file read into memory.
  size_t max_message_document_bytes = size_t{64} << 20;
  size_t max_message_transactions = 100'000;
  size_t max_message_file_bytes = size_t{1} << 30;
};

class TransactionReader {
 public:
  static Result<std::unique_ptr<TransactionReader>> Open(const ReaderOptions& options);
  // Open with the other options at their defaults, the format named as the CLI takes it
  // ("auto", "verdict", "iso20022", ...; see ParseCsvFormat).
  static Result<std::unique_ptr<TransactionReader>> Open(std::string path,
                                                         std::string_view format_name);
  // Reads CSV text already in memory (tests, fuzzing). kAmlSimFolder is not accepted here.
  static Result<std::unique_ptr<TransactionReader>> FromString(std::string data,
                                                               const ReaderOptions& options);

  // The next good row into *out; false at the end of input. An I/O error is a non-ok Result.
  Result<bool> Next(LabelledTransaction* out);

  CsvFormat format() const { return format_; }
  const ReadStats& stats() const { return stats_; }
  // For an AMLSim folder: node id → fraudStep (-1 for normal accounts); otherwise nullptr.
  const std::unordered_map<std::string, int64_t>* account_fraud_steps() const {
    return format_ == CsvFormat::kAmlSimFolder ? &fraud_step_ : nullptr;
  }

 private:
  TransactionReader() = default;
  Status Start(std::unique_ptr<LineSource> lines, const ReaderOptions& options,
               std::string typology);
  // Reads the rest of `lines` (after `head`, already read) as a payment message file.
  Status StartMessages(std::unique_ptr<LineSource> lines, std::string head, CsvFormat format,
                       const ReaderOptions& options);
  Result<bool> NextMessageTransaction(LabelledTransaction* out);
  Status LoadNodes(const std::string& path);

  std::unique_ptr<LineSource> lines_;
  std::unique_ptr<RowParser> parser_;
  CsvFormat format_ = CsvFormat::kAuto;
  size_t field_count_ = 0;
  size_t max_reported_ = 0;
  ReadStats stats_;
  std::string line_;
  std::vector<std::string> fields_;
  std::unordered_map<std::string, int64_t> fraud_step_;
  std::unique_ptr<PaymentMessageFile> messages_;
};

}  // namespace verdict
