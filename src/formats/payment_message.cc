#include "formats/payment_message.h"

#include <cctype>

#include "formats/message_text.h"

namespace verdict {
namespace {

std::string Lower(std::string_view s) {
  std::string out(TrimSpace(s));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The value of parameter `name` in "a=b; c=\"d\"" (lower-cased), or empty.
std::string Param(std::string_view params, std::string_view name) {
  while (!params.empty()) {
    const size_t semi = params.find(';');
    std::string_view item = params.substr(0, semi);
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    if (Lower(item.substr(0, eq)) != name) continue;
    std::string value = Lower(item.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return {};
}

Status Unsupported(const std::string& what) { return UnsupportedMediaType(what, "Content-Type"); }

}  // namespace

Result<PaymentMediaType> ClassifyPaymentMediaType(std::string_view media_type,
                                                  std::string_view media_params) {
  const std::string type = Lower(media_type);
  const std::string charset = Param(media_params, "charset");
  if (type == "application/xml" || type == "text/xml") {
    if (!charset.empty() && charset != "utf-8") {
      return Unsupported("ISO 20022 messages must be UTF-8, not charset " + charset);
    }
    return PaymentMediaType::kIso20022;
  }
  if (type == "application/x-swift-mt") return PaymentMediaType::kSwiftMt;
  if (type == "text/plain") {
    const std::string format = Param(media_params, "format");
    if (format == "swift-mt") return PaymentMediaType::kSwiftMt;
    return Unsupported(
        "text/plain needs format=swift-mt (text/plain; format=swift-mt) for SWIFT MT messages");
  }
  return PaymentMediaType::kOther;
}

Result<DecodedPaymentMessage> DecodePaymentMessageDetailed(std::string_view media_type,
                                                           std::string_view media_params,
                                                           std::string_view body,
                                                           const PaymentMessageOptions& options) {
  VERDICT_ASSIGN_OR_RETURN(PaymentMediaType media,
                           ClassifyPaymentMediaType(media_type, media_params));
  DecodedPaymentMessage out;
  out.media = media;
  if (TrimSpace(body).empty()) return InvalidArgument("body is empty; expected a payment message");
  switch (media) {
    case PaymentMediaType::kOther:
      return Unsupported("media type " + Lower(media_type).substr(0, 60) +
                         " is not a payment message (application/xml, text/plain; "
                         "format=swift-mt, application/x-swift-mt)");
    case PaymentMediaType::kIso20022: {
      VERDICT_ASSIGN_OR_RETURN(out.iso, DecodeIso20022(body, options.xml));
      out.message_type = out.iso.message_type;
      out.message_id = out.iso.message_id;
      out.transactions = std::move(out.iso.transactions);
      out.iso.transactions.clear();
      out.dated_only.assign(out.transactions.size(), false);
      return out;
    }
    case PaymentMediaType::kSwiftMt: {
      VERDICT_ASSIGN_OR_RETURN(std::vector<MtChunk> chunks, SplitMtMessages(body, options.mt));
      for (const MtChunk& chunk : chunks) {
        Result<MtMessage> blocks = ParseMtBlocks(chunk.text, chunk.first_line, options.mt);
        if (!blocks.ok()) {
          out.transactions.push_back(blocks.status());
          continue;
        }
        bool carries_time = false;
        Result<Transaction> txn = MapMtMessage(*blocks, &carries_time);
        if (txn.ok()) {
          const std::string& t = txn->payment.message_type;
          out.message_type = out.message_type.empty() || out.message_type == t ? t : "MT";
          if (chunks.size() == 1) out.message_id = txn->payment.message_id;
        }
        out.dated_only.push_back(txn.ok() && !carries_time);
        out.transactions.push_back(std::move(txn));
      }
      if (out.message_type.empty()) out.message_type = "MT";
      return out;
    }
  }
  return Internal("unreachable media type");
}

void StampTimeOfReceipt(DecodedPaymentMessage& message, int64_t received_us) {
  for (size_t i = 0; i < message.transactions.size() && i < message.dated_only.size(); ++i) {
    if (message.dated_only[i] && message.transactions[i].ok()) {
      message.transactions[i]->timestamp_us = received_us;
    }
    message.dated_only[i] = false;
  }
}

Result<std::vector<Result<Transaction>>> DecodePaymentMessage(std::string_view media_type,
                                                              std::string_view media_params,
                                                              std::string_view body) {
  VERDICT_ASSIGN_OR_RETURN(DecodedPaymentMessage decoded,
                           DecodePaymentMessageDetailed(media_type, media_params, body));
  return std::move(decoded.transactions);
}

}  // namespace verdict
