// The one entry point for payment messages on the wire: picks the decoder from the request's
// media type (ISO 20022 XML or SWIFT MT) and returns one Result per transaction. Stateless
// free functions; thread-safe. Media types and response shape: docs/formats.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "core/transaction.h"
#include "formats/iso20022.h"
#include "formats/swift_mt.h"

namespace verdict {

enum class PaymentMediaType {
  kOther,     // not a payment message type (e.g. application/json): the caller's business
  kIso20022,  // application/xml, text/xml (charset, if given, must be UTF-8)
  kSwiftMt,   // text/plain; format=swift-mt, or application/x-swift-mt
};

// Classifies a Content-Type given as its type/subtype and its parameters ("a=b; c=d").
// Case-insensitive. text/plain without format=swift-mt, or an XML charset other than UTF-8,
// is UnsupportedMediaType (a kInvalidArgument whose reason the API answers with 415).
Result<PaymentMediaType> ClassifyPaymentMediaType(std::string_view media_type,
                                                  std::string_view media_params);

struct PaymentMessageOptions {
  XmlLimits xml;
  MtLimits mt;
};

struct DecodedPaymentMessage {
  PaymentMediaType media = PaymentMediaType::kOther;
  std::string message_type;  // "pacs.008.001.08", "MT103", ... ("MT" when several MT messages)
  std::vector<Result<Transaction>> transactions;
  // Per transaction: true when its message gave a date but no time of day (an MT without a
  // :13C: time), so its timestamp is the value date at midnight UTC; the receiver stamps the
  // time it received the message instead (StampTimeOfReceipt).
  std::vector<bool> dated_only;
  // The message's own reference: GrpHdr/MsgId, or an MT's :20: (one MT message per body).
  std::string message_id;
  Iso20022Message iso;  // for ISO 20022 (status report fields for pacs.002); transactions moved out
};

// The outer Result fails when the message as a whole is bad (unsupported media type: 415;
// too large: 413; not XML, unknown message, bad group header: 400); otherwise each
// transaction has its own Result whose Status names the element path or MT tag and line.
// A pacs.002 yields zero transactions and its summary in `iso`.
Result<DecodedPaymentMessage> DecodePaymentMessageDetailed(
    std::string_view media_type, std::string_view media_params, std::string_view body,
    const PaymentMessageOptions& options = {});

// Sets the timestamp of each transaction `message.dated_only` marks to `received_us` (the
// receiver's clock when the message arrived), and clears the marks. Journaled with the
// decision, the stamped timestamp is what an audit replay uses.
void StampTimeOfReceipt(DecodedPaymentMessage& message, int64_t received_us);

Result<std::vector<Result<Transaction>>> DecodePaymentMessage(std::string_view media_type,
                                                              std::string_view media_params,
                                                              std::string_view body);

}  // namespace verdict
