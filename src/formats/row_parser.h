// RowParser: turns the fields of one CSV data row of a known format into a LabelledTransaction.
// One per reader; may keep state between rows (e.g. AMLSim account labels); not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "formats/labelled_transaction.h"

namespace verdict {

// The input formats TransactionReader reads. Despite the name, kIso20022 and kSwiftMt are
// payment message files (see formats/message_file.h), not CSV; they have no RowParser.
enum class CsvFormat { kAuto, kVerdict, kAmlSimLog, kAmlSimFolder, kAmlWorld, kIso20022, kSwiftMt };
std::string_view CsvFormatName(CsvFormat format);
Result<CsvFormat> ParseCsvFormat(std::string_view name);  // "auto", "verdict", "iso20022", ...

// Number of fields in a data row of `format` (0 for kAuto).
size_t FieldCountOf(CsvFormat format);

// The format a header line names, or an error naming what was expected.
Result<CsvFormat> DetectCsvFormat(const std::vector<std::string>& header);

struct ParserOptions {
  int64_t amlsim_epoch_us = 0;          // event time of AMLSim step 0
  std::string amlsim_currency = "USD";  // AMLSim amounts have no currency
  std::string amlsim_typology;          // typology for AMLSim folder labels, e.g. "fan_in"
};

class RowParser {
 public:
  virtual ~RowParser() = default;
  // Fills *out (except row and line) from one data row.
  virtual Status Parse(const std::vector<std::string>& fields, LabelledTransaction* out) = 0;
};

// The header must already have been checked by DetectCsvFormat for `format`.
// kAmlSimFolder needs `fraud_step`: AMLSim node id → fraudStep (-1 for normal accounts).
Result<std::unique_ptr<RowParser>> MakeRowParser(
    CsvFormat format, const ParserOptions& options,
    const std::unordered_map<std::string, int64_t>* fraud_step = nullptr);

}  // namespace verdict
