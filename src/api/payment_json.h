// The `payment` object of a transaction's JSON: what an ISO 20022 or SWIFT MT message carried
// beyond the core fields (ids, UETR, agents, charges, purpose). Its canonical writer puts it in
// the journal's canonical input, and its decoder reads it back, so the record, the auditor and
// `verdict audit replay` see everything the message said. Stateless; thread-safe.
#pragma once

#include <simdjson.h>

#include <string>

#include "common/json_writer.h"
#include "common/result.h"
#include "core/transaction.h"

namespace verdict {

// Decodes `value` (the JSON under key `field`, normally "payment"). Unknown and duplicate keys
// are refused; every error names the field ("payment.agents[1].bic").
Result<PaymentInfo> DecodePaymentInfo(simdjson::dom::element value, const std::string& field);

// Writes the payment as one JSON object: fixed key order, empty values omitted, amounts as
// decimal strings with their currency.
void WritePaymentJson(JsonWriter& w, const PaymentInfo& payment);

}  // namespace verdict
