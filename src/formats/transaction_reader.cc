#include "formats/transaction_reader.h"

#include <filesystem>

#include "formats/amount.h"
#include "formats/csv.h"
#include "formats/message_text.h"

namespace verdict {

namespace {

std::string TypologyOfFolder(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string() +
                           std::filesystem::path(path).parent_path().filename().string();
  if (name.find("fanin") != std::string::npos) return "fan_in";
  if (name.find("fanout") != std::string::npos) return "fan_out";
  if (name.find("cycle") != std::string::npos) return "cycle";
  return "amlsim";
}

}  // namespace

Result<std::unique_ptr<TransactionReader>> TransactionReader::Open(std::string path,
                                                                   std::string_view format_name) {
  ReaderOptions options;
  options.path = std::move(path);
  VERDICT_ASSIGN_OR_RETURN(options.format, ParseCsvFormat(format_name));
  return Open(options);
}

Result<std::unique_ptr<TransactionReader>> TransactionReader::Open(const ReaderOptions& options) {
  std::unique_ptr<TransactionReader> reader(new TransactionReader());
  std::error_code ec;
  std::string path = options.path;
  std::string typology;
  if (std::filesystem::is_directory(path, ec)) {
    if (options.format != CsvFormat::kAuto && options.format != CsvFormat::kAmlSimFolder) {
      return InvalidArgument(path + " is a folder: only an AMLSim sample folder can be read",
                             "input");
    }
    VERDICT_RETURN_IF_ERROR(
        reader->LoadNodes((std::filesystem::path(path) / "nodes.csv").string()));
    typology = TypologyOfFolder(path);
    path = (std::filesystem::path(path) / "transactions.csv").string();
  }
  VERDICT_ASSIGN_OR_RETURN(auto lines, OpenFileLines(path));
  if (typology.empty() && options.format != CsvFormat::kVerdict &&
      options.format != CsvFormat::kAmlSimLog && options.format != CsvFormat::kAmlWorld) {
    // Payment message files are told by their first non-blank line.
    std::string head;
    std::string line;
    std::optional<CsvFormat> sniffed;
    while (true) {
      VERDICT_ASSIGN_OR_RETURN(bool more, lines->Next(&line));
      if (!more) break;
      head += line;
      head += '\n';
      if (!TrimSpace(line).empty()) {
        sniffed = SniffPaymentMessageFormat(line);
        break;
      }
    }
    const bool forced =
        options.format == CsvFormat::kIso20022 || options.format == CsvFormat::kSwiftMt;
    if (forced || sniffed) {
      VERDICT_RETURN_IF_ERROR(reader->StartMessages(std::move(lines), std::move(head),
                                                    forced ? options.format : *sniffed, options));
      return reader;
    }
    VERDICT_ASSIGN_OR_RETURN(lines, OpenFileLines(path));  // CSV: start again at the header
  }
  VERDICT_RETURN_IF_ERROR(reader->Start(std::move(lines), options, typology));
  if (reader->format_ == CsvFormat::kAmlSimFolder && reader->fraud_step_.empty()) {
    return InvalidArgument(path + ": AMLSim transactions.csv needs its folder's nodes.csv",
                           "input");
  }
  return reader;
}

Result<std::unique_ptr<TransactionReader>> TransactionReader::FromString(
    std::string data, const ReaderOptions& options) {
  std::unique_ptr<TransactionReader> reader(new TransactionReader());
  if (options.format == CsvFormat::kIso20022 || options.format == CsvFormat::kSwiftMt ||
      (options.format == CsvFormat::kAuto && SniffPaymentMessageFormat(data))) {
    const CsvFormat format =
        options.format == CsvFormat::kAuto ? *SniffPaymentMessageFormat(data) : options.format;
    VERDICT_RETURN_IF_ERROR(reader->StartMessages(nullptr, std::move(data), format, options));
    return reader;
  }
  VERDICT_RETURN_IF_ERROR(reader->Start(StringLines(std::move(data)), options, ""));
  if (reader->format_ == CsvFormat::kAmlSimFolder) {
    return InvalidArgument("AMLSim transactions.csv needs its folder's nodes.csv", "input");
  }
  return reader;
}

Status TransactionReader::LoadNodes(const std::string& path) {
  VERDICT_ASSIGN_OR_RETURN(auto lines, OpenFileLines(path));
  std::string line;
  std::vector<std::string> f;
  VERDICT_ASSIGN_OR_RETURN(bool has_header, lines->Next(&line));
  if (!has_header || line != "nodeid,isFraud,init_balance,fraudStep") {
    return InvalidArgument(path + ": expected header nodeid,isFraud,init_balance,fraudStep",
                           "input");
  }
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, lines->Next(&line));
    if (!more) break;
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(lines->line_number());
    if (!SplitCsvLine(line, &f).ok() || f.size() != 4) {
      return InvalidArgument(where + ": expected 4 fields", "input");
    }
    auto fraud = ParseInteger(f[1]);
    auto step = ParseInteger(f[3]);
    if (!fraud.ok() || !step.ok()) return InvalidArgument(where + ": bad isFraud/fraudStep");
    fraud_step_[f[0]] = *fraud == 1 ? std::max<int64_t>(*step, 0) : -1;
  }
  return Status::Ok();
}

Status TransactionReader::Start(std::unique_ptr<LineSource> lines, const ReaderOptions& options,
                                std::string typology) {
  lines_ = std::move(lines);
  max_reported_ = options.max_reported_bad_rows;
  VERDICT_ASSIGN_OR_RETURN(bool has_header, lines_->Next(&line_));
  if (!has_header) return InvalidArgument("input is empty: no header line", "input");
  Status split = SplitCsvLine(line_, &fields_);
  if (!split.ok()) return InvalidArgument("header: " + split.message(), "input");
  if (options.format == CsvFormat::kAuto) {
    VERDICT_ASSIGN_OR_RETURN(format_, DetectCsvFormat(fields_));
  } else {
    format_ = options.format;
  }
  field_count_ = FieldCountOf(format_);
  ParserOptions parser_options;
  parser_options.amlsim_epoch_us = options.amlsim_epoch_us;
  parser_options.amlsim_currency = options.amlsim_currency;
  parser_options.amlsim_typology = std::move(typology);
  VERDICT_ASSIGN_OR_RETURN(parser_, MakeRowParser(format_, parser_options, &fraud_step_));
  return Status::Ok();
}

Status TransactionReader::StartMessages(std::unique_ptr<LineSource> lines, std::string head,
                                        CsvFormat format, const ReaderOptions& options) {
  format_ = format;
  max_reported_ = options.max_reported_bad_rows;
  std::string data = std::move(head);
  std::string line;
  while (lines != nullptr) {
    VERDICT_ASSIGN_OR_RETURN(bool more, lines->Next(&line));
    if (!more) break;
    data += line;
    data += '\n';
    if (data.size() > options.max_message_file_bytes) {
      return InputTooLarge(options.path + ": message file larger than " +
                               std::to_string(options.max_message_file_bytes) + " bytes",
                           "input");
    }
  }
  PaymentMessageOptions message_options;
  message_options.xml.max_bytes = options.max_message_document_bytes;
  message_options.xml.max_transactions = options.max_message_transactions;
  Result<std::unique_ptr<PaymentMessageFile>> file =
      PaymentMessageFile::FromString(std::move(data), format, message_options);
  if (!file.ok()) {
    return InvalidArgument(
        (options.path.empty() ? std::string() : options.path + ": ") + file.status().message(),
        "input");
  }
  messages_ = std::move(*file);
  return Status::Ok();
}

Result<bool> TransactionReader::NextMessageTransaction(LabelledTransaction* out) {
  while (true) {
    size_t line = 0;
    std::optional<Result<Transaction>> item = messages_->Next(&line);
    if (!item) return false;
    const size_t row = stats_.rows++;
    if (!item->ok()) {
      ++stats_.bad_rows;
      if (stats_.bad_row_samples.size() < max_reported_) {
        stats_.bad_row_samples.push_back(BadRow{line, item->status().message()});
      }
      continue;
    }
    out->txn = std::move(**item);
    out->label.reset();
    out->typology.clear();
    out->pattern_id.clear();
    out->row = row;
    out->line = line;
    ++stats_.good_rows;
    return true;
  }
}

Result<bool> TransactionReader::Next(LabelledTransaction* out) {
  if (messages_ != nullptr) return NextMessageTransaction(out);
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, lines_->Next(&line_));
    if (!more) return false;
    if (line_.empty()) continue;  // blank lines are not rows
    const size_t row = stats_.rows++;
    Status s = SplitCsvLine(line_, &fields_);
    if (s.ok() && fields_.size() != field_count_) {
      s = InvalidArgument("expected " + std::to_string(field_count_) + " fields, got " +
                          std::to_string(fields_.size()));
    }
    if (s.ok()) s = parser_->Parse(fields_, out);
    if (!s.ok()) {
      ++stats_.bad_rows;
      if (stats_.bad_row_samples.size() < max_reported_) {
        stats_.bad_row_samples.push_back(BadRow{lines_->line_number(), s.message()});
      }
      continue;
    }
    if (format_ != CsvFormat::kVerdict) {
      out->txn.transaction_id = std::string(CsvFormatName(format_)) + "-" + std::to_string(row);
    }
    out->row = row;
    out->line = lines_->line_number();
    ++stats_.good_rows;
    return true;
  }
}

}  // namespace verdict
