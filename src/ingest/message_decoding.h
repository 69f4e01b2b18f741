// Decodes one stream message into transactions with the HTTP API's decoders: a JSON
// transaction or {"transactions": [...]} batch, an ISO 20022 message or SWIFT MT
// (docs/formats.md). The content type comes from the message (Kafka header "content-type", AMQP
// content_type property); without one it is recognized from the first byte ('<' XML, "{1:" or
// ':' MT, '{' JSON). Not thread-safe (the decoder is the caller's, one per consumer thread).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "api/transaction_json.h"
#include "common/result.h"
#include "core/transaction.h"

namespace verdict::ingest {

// The outer Result fails when the message as a whole cannot be read (its error names the field
// or element); otherwise one Result per transaction, in message order. Dated-only MT
// transactions get `received_us` as their time, as over HTTP.
Result<std::vector<Result<Transaction>>> DecodeStreamMessage(TransactionDecoder& json_decoder,
                                                             std::string_view content_type,
                                                             std::string_view payload,
                                                             int64_t received_us, size_t max_items);

}  // namespace verdict::ingest
