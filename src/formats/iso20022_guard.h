// The pre-parse guard for ISO 20022 XML: one linear pass over the bytes that refuses what a
// payment message never needs and an attacker would send (DOCTYPE and entity declarations,
// excessive size, nesting or text) before pugixml sees the input. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

#include "common/status.h"

namespace verdict {

struct XmlLimits {
  size_t max_bytes = size_t{4} << 20;  // one message (pacs.008 of 1,000 transactions ≈ 3 MB)
  int max_depth = 32;                  // ISO 20022 messages nest about 12 deep, wrapped 15
  size_t max_text_bytes = 4096;        // one text node, CDATA section or attribute value
  size_t max_transactions = 1000;      // CdtTrfTxInf per message, as for :batch
};

// Ok when `xml` is within `limits` and has no markup declaration ("<!DOCTYPE", "<!ENTITY",
// ...). A well-formedness problem the scan notices on the way (an unterminated comment or
// tag) is refused too; everything else is left to the parser. Errors name the line.
Status ScanXml(std::string_view xml, const XmlLimits& limits);

}  // namespace verdict
