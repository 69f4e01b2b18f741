// The per-message decoders behind DecodeIso20022, each given the message's root element
// (FIToFICstmrCdtTrf, CstmrCdtTrfInitn, FIToFIPmtStsRpt). Stateless; thread-safe.
#pragma once

#include <pugixml.hpp>

#include "formats/iso20022.h"

namespace verdict::iso20022 {

Status DecodePacs008(pugi::xml_node root, const XmlLimits& limits, Iso20022Message* out);
Status DecodePain001(pugi::xml_node root, const XmlLimits& limits, Iso20022Message* out);
Status DecodePacs002(pugi::xml_node root, Iso20022Message* out);

// The CdtTrfTxInf children of `parent`, refused when `already` + their number exceeds `max`.
Result<std::vector<pugi::xml_node>> TransactionNodes(pugi::xml_node parent, size_t max,
                                                     size_t already = 0);

}  // namespace verdict::iso20022
