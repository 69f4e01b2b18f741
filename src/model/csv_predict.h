// PredictCsv: scores (and optionally explains) every row of a CSV file with a Forest; the
// logic behind `verdict model predict`. Stateless; thread-safe for distinct streams.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "common/status.h"
#include "model/forest.h"

namespace verdict::model {

struct CsvPredictOptions {
  bool explain = false;          // add one TreeSHAP column per feature and `bias`
  std::string source = "input";  // names the input in error messages
};

// Input: a header of column names, then one row per line. Every model feature must have a
// column (matched by name; extra columns are ignored; a feature named twice is an error).
// Cells are decimal numbers; an empty cell is a missing value (so is "nan"). Quoted cells
// ("...", with "" for a quote) are accepted. Output: a header and one line per row with
// `margin,probability` and, when explaining, the contributions in the model's feature order
// followed by `bias`. Errors name the line and column.
Status PredictCsv(const Forest& forest, std::istream& in, std::ostream& out,
                  const CsvPredictOptions& options);

}  // namespace verdict::model
