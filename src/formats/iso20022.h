// Decoding of ISO 20022 payment messages into Transactions: pacs.008.001.08 and
// pain.001.001.09 (one Transaction per CdtTrfTxInf), pacs.002 (status report: no
// transactions, a summary). The XML is screened by ScanXml before pugixml parses it without
// DTD processing. Stateless free function; thread-safe. Mapping tables: docs/formats.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/transaction.h"
#include "formats/iso20022_guard.h"

namespace verdict {

// One TxInfAndSts of a pacs.002, or its group status.
struct PaymentStatusEntry {
  std::string original_end_to_end_id;
  std::string original_tx_id;
  std::string original_uetr;
  std::string status;  // ExternalPaymentTransactionStatus1Code: ACSC, RJCT, PDNG, ...
  std::string reason;  // StsRsnInf/Rsn/Cd, e.g. AC04
};

struct Iso20022Message {
  std::string message_type;         // "pacs.008.001.08", "pain.001.001.09", "pacs.002.001.10"
  std::string message_id;           // GrpHdr/MsgId
  std::string business_message_id;  // AppHdr/BizMsgIdr, when wrapped
  // pacs.008 / pain.001: one per CdtTrfTxInf in document order; an item's error names its
  // element path (field) and says what is wrong (message).
  std::vector<Result<Transaction>> transactions;
  // pacs.002 only.
  std::string original_message_id;  // OrgnlGrpInfAndSts/OrgnlMsgId
  std::string group_status;         // OrgnlGrpInfAndSts/GrpSts
  std::vector<PaymentStatusEntry> statuses;
};

// The outer Result fails when the message as a whole cannot be used (not XML, refused by the
// guard, unknown message, bad group header, more than limits.max_transactions).
Result<Iso20022Message> DecodeIso20022(std::string_view xml, const XmlLimits& limits = {});

}  // namespace verdict
