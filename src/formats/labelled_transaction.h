// LabelledTransaction: one input row as the readers deliver it: the transaction plus its
// ground-truth label (when the data has one) and where it came from. Value type.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/transaction.h"

namespace verdict {

struct LabelledTransaction {
  Transaction txn;
  std::optional<bool> label;  // true = laundering; empty when the input has no labels
  std::string typology;       // e.g. "structuring"; empty for normal rows or when unknown
  std::string pattern_id;     // the laundering pattern the row belongs to, when known
  size_t row = 0;             // 0-based data row of the input (bad rows count too)
  size_t line = 0;            // 1-based line of the input file (the header is line 1)
};

struct BadRow {
  size_t line = 0;  // 1-based line of the input file
  std::string message;
};

struct ReadStats {
  size_t rows = 0;  // data rows seen (good and bad)
  size_t good_rows = 0;
  size_t bad_rows = 0;
  std::vector<BadRow> bad_row_samples;  // the first ReaderOptions::max_reported_bad_rows
};

}  // namespace verdict
