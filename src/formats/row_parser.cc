#include "formats/row_parser.h"

#include "common/rfc3339.h"
#include "core/currency.h"
#include "formats/amount.h"
#include "formats/verdict_csv.h"

namespace verdict {

namespace {

constexpr std::string_view kAmlSimLogHeader[] = {
    "step",     "type",           "amount",         "nameOrig", "oldbalanceOrig", "newbalanceOrig",
    "nameDest", "oldbalanceDest", "newbalanceDest", "isSAR",    "alertID"};
constexpr std::string_view kAmlSimTxHeader[] = {"sourceNodeId", "targetNodeId", "value", "time"};
constexpr std::string_view kAmlWorldHeader[] = {
    "Timestamp",       "From Bank",          "Account",     "To Bank",          "Account",
    "Amount Received", "Receiving Currency", "Amount Paid", "Payment Currency", "Payment Format",
    "Is Laundering"};

template <size_t N>
bool Matches(const std::vector<std::string>& header, const std::string_view (&names)[N]) {
  if (header.size() != N) return false;
  for (size_t i = 0; i < N; ++i) {
    if (header[i] != names[i]) return false;
  }
  return true;
}

Status FieldError(std::string_view field, const Status& s) {
  return InvalidArgument(std::string(field) + ": " + s.message(), std::string(field));
}

Result<bool> ParseFlag(std::string_view text) {
  if (text == "1") return true;
  if (text == "0") return false;
  return InvalidArgument("expected 0 or 1");
}

class VerdictParser final : public RowParser {
 public:
  Status Parse(const std::vector<std::string>& f, LabelledTransaction* out) override {
    Transaction& t = out->txn;
    if (f[0].empty()) return InvalidArgument("transaction_id is empty", "transaction_id");
    t.transaction_id = f[0];
    auto ts = ParseRfc3339Micros(f[1]);
    if (!ts.ok()) return FieldError("timestamp", ts.status());
    t.timestamp_us = *ts;
    const CurrencyInfo* currency = CurrencyByCodeOrName(f[3]);
    if (currency == nullptr) return InvalidArgument("unknown currency " + f[3], "currency");
    auto amount = ParseDatasetAmount(f[2], *currency);
    if (!amount.ok()) return FieldError("amount", amount.status());
    t.amount = *amount;
    if (f[4].empty() || f[7].empty()) return InvalidArgument("empty account", "account");
    t.sender = Party{{f[4], f[5]}, f[6], {}};
    t.receiver = Party{{f[7], f[8]}, f[9], {}};
    t.channel = f[10];
    t.type = f[11];
    out->label.reset();
    if (!f[12].empty()) {
      auto label = ParseFlag(f[12]);
      if (!label.ok()) return FieldError("is_laundering", label.status());
      out->label = *label;
    }
    out->typology = f[13];
    out->pattern_id = f[14];
    return Status::Ok();
  }
};

class AmlSimLogParser final : public RowParser {
 public:
  explicit AmlSimLogParser(const ParserOptions& o, const CurrencyInfo& c) : options_(o), cur_(c) {}
  Status Parse(const std::vector<std::string>& f, LabelledTransaction* out) override {
    Transaction& t = out->txn;
    auto step = ParseInteger(f[0]);
    if (!step.ok() || *step < 0 || *step > 1'000'000) return InvalidArgument("bad step", "step");
    t.timestamp_us = options_.amlsim_epoch_us + *step * 86'400 * int64_t{1'000'000};
    auto amount = ParseDatasetAmount(f[2], cur_);
    if (!amount.ok()) return FieldError("amount", amount.status());
    t.amount = *amount;
    if (f[3].empty() || f[6].empty()) return InvalidArgument("empty account", "nameOrig");
    t.sender = Party{{f[3], {}}, {}, {}};
    t.receiver = Party{{f[6], {}}, {}, {}};
    t.type = f[1] == "TRANSFER" ? "transfer" : f[1];
    t.channel.clear();
    auto sar = ParseFlag(f[9]);
    if (!sar.ok()) return FieldError("isSAR", sar.status());
    out->label = *sar;
    auto alert = ParseInteger(f[10]);
    if (!alert.ok()) return FieldError("alertID", alert.status());
    out->pattern_id = *alert >= 0 ? f[10] : std::string();
    out->typology = *sar ? "amlsim_alert" : "";
    return Status::Ok();
  }

 private:
  ParserOptions options_;
  const CurrencyInfo& cur_;
};

class AmlSimFolderParser final : public RowParser {
 public:
  AmlSimFolderParser(const ParserOptions& o, const CurrencyInfo& c,
                     const std::unordered_map<std::string, int64_t>& fraud_step)
      : options_(o), cur_(c), fraud_step_(fraud_step) {}
  Status Parse(const std::vector<std::string>& f, LabelledTransaction* out) override {
    Transaction& t = out->txn;
    auto step = ParseInteger(f[3]);
    if (!step.ok() || *step < 0 || *step > 1'000'000) return InvalidArgument("bad time", "time");
    t.timestamp_us = options_.amlsim_epoch_us + *step * 86'400 * int64_t{1'000'000};
    auto amount = ParseDatasetAmount(f[2], cur_);
    if (!amount.ok()) return FieldError("value", amount.status());
    t.amount = *amount;
    if (f[0].empty() || f[1].empty()) return InvalidArgument("empty node id", "sourceNodeId");
    t.sender = Party{{f[0], {}}, {}, {}};
    t.receiver = Party{{f[1], {}}, {}, {}};
    t.type = "transfer";
    t.channel.clear();
    // Labels are per account; a transfer is labelled when both ends are in a pattern and it
    // happens at or after both patterns' start (docs/features.md, "Readers").
    const int64_t s = FraudStep(f[0]);
    const int64_t r = FraudStep(f[1]);
    out->label = s >= 0 && r >= 0 && *step >= s && *step >= r;
    out->typology = *out->label ? options_.amlsim_typology : "";
    out->pattern_id.clear();
    return Status::Ok();
  }

 private:
  int64_t FraudStep(const std::string& id) const {
    auto it = fraud_step_.find(id);
    return it == fraud_step_.end() ? -1 : it->second;
  }
  ParserOptions options_;
  const CurrencyInfo& cur_;
  const std::unordered_map<std::string, int64_t>& fraud_step_;
};

class AmlWorldParser final : public RowParser {
 public:
  Status Parse(const std::vector<std::string>& f, LabelledTransaction* out) override {
    Transaction& t = out->txn;
    auto ts = ParseSlashTimestamp(f[0]);
    if (!ts.ok()) return FieldError("Timestamp", ts.status());
    t.timestamp_us = *ts;
    const CurrencyInfo* currency = CurrencyByCodeOrName(f[8]);
    if (currency == nullptr) {
      return InvalidArgument("unknown currency " + f[8], "Payment Currency");
    }
    auto amount = ParseDatasetAmount(f[7], *currency);
    if (!amount.ok()) return FieldError("Amount Paid", amount.status());
    t.amount = *amount;
    if (f[2].empty() || f[4].empty()) return InvalidArgument("empty account", "Account");
    t.sender = Party{{f[2], f[1]}, {}, {}};
    t.receiver = Party{{f[4], f[3]}, {}, {}};
    SetFormat(f[9], &t);
    auto label = ParseFlag(f[10]);
    if (!label.ok()) return FieldError("Is Laundering", label.status());
    out->label = *label;
    out->typology = *label ? "amlworld" : "";
    out->pattern_id.clear();
    return Status::Ok();
  }

 private:
  static void SetFormat(std::string_view format, Transaction* t) {
    static constexpr std::pair<std::string_view, std::string_view> kChannels[] = {
        {"ACH", "ach"},
        {"Wire", "wire"},
        {"Cheque", "cheque"},
        {"Credit Card", "card"},
        {"Cash", "cash"},
        {"Bitcoin", "crypto"},
        {"Reinvestment", "internal"}};
    t->channel = "other";
    for (const auto& [name, channel] : kChannels) {
      if (name == format) t->channel = channel;
    }
    t->type = format == "Reinvestment" ? "reinvestment" : "transfer";
  }
};

}  // namespace

std::string_view CsvFormatName(CsvFormat format) {
  switch (format) {
    case CsvFormat::kAuto:
      return "auto";
    case CsvFormat::kVerdict:
      return "verdict";
    case CsvFormat::kAmlSimLog:
      return "amlsim";
    case CsvFormat::kAmlSimFolder:
      return "amlsim-folder";
    case CsvFormat::kAmlWorld:
      return "amlworld";
    case CsvFormat::kIso20022:
      return "iso20022";
    case CsvFormat::kSwiftMt:
      return "swift-mt";
  }
  return "?";
}

Result<CsvFormat> ParseCsvFormat(std::string_view name) {
  for (CsvFormat f :
       {CsvFormat::kAuto, CsvFormat::kVerdict, CsvFormat::kAmlSimLog, CsvFormat::kAmlSimFolder,
        CsvFormat::kAmlWorld, CsvFormat::kIso20022, CsvFormat::kSwiftMt}) {
    if (CsvFormatName(f) == name) return f;
  }
  return InvalidArgument("unknown format '" + std::string(name) +
                             "' (auto, verdict, amlsim, amlsim-folder, amlworld, iso20022, "
                             "swift-mt)",
                         "format");
}

Result<CsvFormat> DetectCsvFormat(const std::vector<std::string>& header) {
  if (header.size() == kVerdictCsvFields) {
    std::string joined;
    for (size_t i = 0; i < header.size(); ++i) {
      if (i > 0) joined += ',';
      joined += header[i];
    }
    if (joined == kVerdictCsvHeader) return CsvFormat::kVerdict;
  }
  if (Matches(header, kAmlSimLogHeader)) return CsvFormat::kAmlSimLog;
  if (Matches(header, kAmlSimTxHeader)) return CsvFormat::kAmlSimFolder;
  if (Matches(header, kAmlWorldHeader)) return CsvFormat::kAmlWorld;
  return InvalidArgument(
      "header matches no known format (verdict CSV, AMLSim tx log, AMLSim transactions.csv, "
      "IBM AMLworld)",
      "header");
}

Result<std::unique_ptr<RowParser>> MakeRowParser(
    CsvFormat format, const ParserOptions& options,
    const std::unordered_map<std::string, int64_t>* fraud_step) {
  const CurrencyInfo* amlsim_currency = CurrencyByCodeOrName(options.amlsim_currency);
  switch (format) {
    case CsvFormat::kVerdict:
      return std::unique_ptr<RowParser>(new VerdictParser());
    case CsvFormat::kAmlWorld:
      return std::unique_ptr<RowParser>(new AmlWorldParser());
    case CsvFormat::kAmlSimLog:
    case CsvFormat::kAmlSimFolder:
      if (amlsim_currency == nullptr) {
        return InvalidArgument("unknown currency " + options.amlsim_currency, "currency");
      }
      if (format == CsvFormat::kAmlSimLog) {
        return std::unique_ptr<RowParser>(new AmlSimLogParser(options, *amlsim_currency));
      }
      if (fraud_step == nullptr) return InvalidArgument("AMLSim transactions need nodes.csv");
      return std::unique_ptr<RowParser>(
          new AmlSimFolderParser(options, *amlsim_currency, *fraud_step));
    case CsvFormat::kAuto:
    case CsvFormat::kIso20022:
    case CsvFormat::kSwiftMt:
      break;
  }
  return InvalidArgument("no row parser for format " + std::string(CsvFormatName(format)));
}

size_t FieldCountOf(CsvFormat format) {
  switch (format) {
    case CsvFormat::kVerdict:
      return kVerdictCsvFields;
    case CsvFormat::kAmlSimLog:
      return 11;
    case CsvFormat::kAmlSimFolder:
      return 4;
    case CsvFormat::kAmlWorld:
      return 11;
    case CsvFormat::kAuto:
    case CsvFormat::kIso20022:
    case CsvFormat::kSwiftMt:
      break;
  }
  return 0;
}

}  // namespace verdict
