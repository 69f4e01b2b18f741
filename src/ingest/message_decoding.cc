#include "ingest/message_decoding.h"

#include <string>

#include "formats/payment_message.h"

namespace verdict::ingest {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// A content type for a message that declares none, from how its text begins.
std::string_view SniffContentType(std::string_view payload) {
  const std::string_view text = Trim(payload);
  if (text.rfind("{1:", 0) == 0 || text.rfind(":", 0) == 0) return "application/x-swift-mt";
  if (text.rfind("<", 0) == 0) return "application/xml";
  return "application/json";
}

// True when the JSON object's first key is "transactions": the :batch envelope.
bool IsBatchEnvelope(std::string_view json) {
  std::string_view text = Trim(json);
  if (text.empty() || text.front() != '{') return false;
  text = Trim(text.substr(1));
  return text.rfind("\"transactions\"", 0) == 0;
}

}  // namespace

Result<std::vector<Result<Transaction>>> DecodeStreamMessage(TransactionDecoder& json_decoder,
                                                             std::string_view content_type,
                                                             std::string_view payload,
                                                             int64_t received_us,
                                                             size_t max_items) {
  std::string_view declared = Trim(content_type);
  if (declared.empty()) declared = SniffContentType(payload);
  const size_t semicolon = declared.find(';');
  const std::string_view media = Trim(declared.substr(0, semicolon));
  const std::string_view params = semicolon == std::string_view::npos
                                      ? std::string_view()
                                      : Trim(declared.substr(semicolon + 1));
  Result<PaymentMediaType> kind = ClassifyPaymentMediaType(media, params);
  if (!kind.ok()) return kind.status();
  if (*kind == PaymentMediaType::kOther) {
    if (media != "application/json") {
      return InvalidArgument("content type '" + std::string(media.substr(0, 80)) +
                                 "' is not JSON, ISO 20022 XML or SWIFT MT",
                             "content-type");
    }
    if (IsBatchEnvelope(payload)) return json_decoder.DecodeBatch(payload, max_items);
    Result<Transaction> one = json_decoder.DecodeOne(payload);
    if (!one.ok()) return one.status();
    std::vector<Result<Transaction>> items;
    items.push_back(std::move(one).value());
    return items;
  }
  Result<DecodedPaymentMessage> message = DecodePaymentMessageDetailed(media, params, payload);
  if (!message.ok()) return message.status();
  StampTimeOfReceipt(*message, received_us);
  if (message->transactions.empty()) {
    return InvalidArgument(
        "message " + message->message_type + " carries no transaction to decide (a status report?)",
        "message");
  }
  if (message->transactions.size() > max_items) {
    return InvalidArgument("message has " + std::to_string(message->transactions.size()) +
                               " transactions, more than " + std::to_string(max_items),
                           "message");
  }
  return std::move(message->transactions);
}

}  // namespace verdict::ingest
