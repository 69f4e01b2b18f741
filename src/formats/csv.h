// CSV helpers shared by the readers and writers: RFC 4180 field splitting (quotes, doubled
// quotes) and quoting on output. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace verdict {

// Splits one line into fields (reusing the strings of *fields). A quote inside an unquoted
// field, or an unterminated quoted field, is an error.
Status SplitCsvLine(std::string_view line, std::vector<std::string>* fields);

// Appends `field` to *out, quoted when it contains a comma, quote, CR or LF.
void AppendCsvField(std::string_view field, std::string* out);

}  // namespace verdict
