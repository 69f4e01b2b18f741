#include "formats/verdict_csv.h"

#include "common/rfc3339.h"
#include "formats/csv.h"

namespace verdict {

void AppendVerdictCsvRow(const LabelledTransaction& t, std::string* out) {
  const Transaction& x = t.txn;
  auto field = [&](std::string_view v, bool comma = true) {
    AppendCsvField(v, out);
    if (comma) out->push_back(',');
  };
  field(x.transaction_id);
  field(FormatRfc3339Micros(x.timestamp_us));
  field(x.amount.ToDecimalString());
  field(x.amount.valid() ? x.amount.currency().code : std::string_view());
  field(x.sender.ref.account);
  field(x.sender.ref.bank);
  field(x.sender.country);
  field(x.receiver.ref.account);
  field(x.receiver.ref.bank);
  field(x.receiver.country);
  field(x.channel);
  field(x.type);
  field(t.label.has_value() ? (*t.label ? "1" : "0") : "");
  field(t.typology);
  field(t.pattern_id, false);
}

}  // namespace verdict
