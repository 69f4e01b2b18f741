#include "training/replay.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <vector>

#include "common/json_writer.h"

namespace verdict::training {
namespace {

constexpr int64_t kMicrosPerDay = int64_t{86'400} * 1'000'000;
constexpr size_t kMaxErrorSamples = 20;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Item {
  size_t row = 0;
  std::string transaction_id;
  std::optional<bool> label;
  std::string typology;
  std::string sender;  // AMLSim folders only
  std::string receiver;
  int64_t step = 0;
  ReplayedDecision decision;
};

bool Flagged(const ReplayedDecision& d) { return d.ok && d.outcome != Outcome::kAllow; }

void WriteOutcomes(JsonWriter& w, const std::array<size_t, 3>& counts) {
  w.BeginObject()
      .Key("allow")
      .Uint(counts[0])
      .Key("review")
      .Uint(counts[1])
      .Key("block")
      .Uint(counts[2])
      .EndObject();
}

void WritePolicyRef(JsonWriter& w, const PolicyRef& ref) {
  w.BeginObject().Key("version").String(ref.version).Key("sha256").String(ref.sha256).EndObject();
}

std::string Percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100 * x);
  return buf;
}

std::string DetectionText(const char* title, const DetectionReport& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: PR-AUC %.4f, alert rate %s (%zu of %zu), precision %.4f, recall %.4f "
                "(%zu of %zu), F1 %.4f\n",
                title, r.pr_auc, Percent(r.alert_rate).c_str(), r.flagged, r.rows, r.precision,
                r.recall, r.true_positives, r.positives, r.f1);
  std::string out = buf;
  for (const auto& [name, t] : r.by_typology) {
    std::snprintf(buf, sizeof buf, "  %-22s recall %.4f (%zu of %zu)\n",
                  name.empty() ? "unknown" : name.c_str(), t.recall(), t.detected, t.positives);
    out += buf;
  }
  return out;
}

std::string AccountText(const char* title, const AccountEvaluator::Report& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: %zu of %zu fraud accounts detected (recall %.4f), %zu of %zu accounts "
                "flagged (%s), precision %.4f, F1 %.4f, average precision %.4f\n",
                title, r.detected, r.fraud_accounts, r.recall, r.flagged, r.accounts,
                Percent(r.accounts == 0 ? 0 : static_cast<double>(r.flagged) / r.accounts).c_str(),
                r.precision, r.f1, r.average_precision);
  return buf;
}

// Counts the item's decision (or its error) into the report; true when it was decided.
bool CountDecision(const Item& item, ReplayReport& report) {
  const ReplayedDecision& d = item.decision;
  if (!d.ok) {
    ++report.errors;
    if (report.error_samples.size() < kMaxErrorSamples) {
      report.error_samples.push_back("row " + std::to_string(item.row) + ": " + d.error);
    }
    return false;
  }
  ++report.outcomes[static_cast<int>(d.outcome)];
  ++report.paths[static_cast<int>(d.path)];
  for (const std::string& code : d.reason_codes) ++report.reason_counts[code];
  return true;
}

// One JSON line of the decisions file; `line` is a buffer reused from item to item.
void WriteDecisionLine(const Item& item, std::string& line, std::FILE* out) {
  const ReplayedDecision& d = item.decision;
  line.clear();
  JsonWriter w(line);
  w.BeginObject().Key("row").Uint(item.row).Key("transaction_id").String(item.transaction_id);
  if (d.ok) {
    w.Key("outcome").String(OutcomeName(d.outcome)).Key("score").Double(d.score);
    if (d.risk) w.Key("risk").Double(*d.risk);
    if (d.anomaly) w.Key("anomaly").Double(*d.anomaly);
    w.Key("path").String(DecisionPathName(d.path)).Key("reasons").BeginArray();
    for (const std::string& code : d.reason_codes) w.String(code);
    w.EndArray();
  } else {
    w.Key("error").String(d.error);
  }
  w.EndObject();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), out);
}

// Every decision line, in input order or by risk (highest first, stable).
void WriteDecisions(const std::deque<Item>& items, bool by_risk, std::FILE* out) {
  std::string line;
  if (!by_risk) {
    for (const Item& item : items) WriteDecisionLine(item, line, out);
    return;
  }
  std::vector<const Item*> order;
  for (const Item& item : items) order.push_back(&item);
  auto risk_of = [](const Item* item) {
    const ReplayedDecision& d = item->decision;
    return d.ok && d.risk ? *d.risk : -1.0;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const Item* a, const Item* b) { return risk_of(a) > risk_of(b); });
  for (const Item* item : order) WriteDecisionLine(*item, line, out);
}

// The labelled rows' scores of every ranking the decisions carry.
struct Rankings {
  std::vector<uint8_t> flags;
  std::vector<double> scores;
  std::vector<double> anomalies;
  std::vector<double> risks;
  std::vector<uint8_t> labels;
  std::vector<std::string> typologies;
  bool any_anomaly = false;
  bool any_risk = false;

  void Add(const Item& item) {
    const ReplayedDecision& d = item.decision;
    flags.push_back(Flagged(d));
    scores.push_back(d.score);
    // A decision without one (refused, or on the fallback path) ranks last.
    anomalies.push_back(d.anomaly.value_or(0));
    risks.push_back(d.risk.value_or(0));
    any_anomaly = any_anomaly || d.anomaly.has_value();
    any_risk = any_risk || d.risk.has_value();
    labels.push_back(*item.label);
    typologies.push_back(item.typology);
  }
};

// Detection of the labelled rows by the decisions, the score, the anomaly and risk.
void EvaluateRankings(const Rankings& r, bool has_model, double alert_rate, ReplayReport& report) {
  report.labelled = !r.labels.empty();
  if (!report.labelled) return;
  report.policy_detection = EvaluateFlags(r.flags, r.labels, r.typologies);
  if (!has_model) return;
  // PR-AUC of the policy's ranking needs a score; with a model it is the model score's.
  report.policy_detection.pr_auc = AveragePrecision(r.scores, r.labels);
  report.score_detection = EvaluateAtRate(r.scores, r.labels, r.typologies, alert_rate);
  if (r.any_anomaly) {
    report.anomaly_detection = EvaluateAtRate(r.anomalies, r.labels, r.typologies, alert_rate);
  }
  if (r.any_risk) {
    report.risk_detection = EvaluateAtRate(r.risks, r.labels, r.typologies, alert_rate);
  }
}

}  // namespace

Result<ReplayReport> Replay(const ReplayOptions& options) {
  VERDICT_ASSIGN_OR_RETURN(auto reader, TransactionReader::Open(options.reader));
  VERDICT_ASSIGN_OR_RETURN(auto pipeline, ReplayPipeline::Create(options.pipeline));
  std::FILE* decisions = nullptr;
  if (!options.decisions_path.empty()) {
    decisions = std::fopen(options.decisions_path.c_str(), "wb");
    if (decisions == nullptr) {
      return InvalidArgument(options.decisions_path + ": cannot create", "decisions");
    }
  }
  const bool amlsim_folder = reader->account_fraud_steps() != nullptr;

  ReplayReport report;
  report.input = options.reader.path;
  report.format = reader->format();
  report.policy = pipeline->policy_ref();
  if (pipeline->has_model()) {
    const ModelOptions& m = pipeline->engine_options().model;
    report.model = m.name + " v" + m.version;
  }

  std::deque<Item> items;  // references stay valid while the deque grows
  LabelledTransaction t;
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    auto more = reader->Next(&t);
    if (!more.ok()) {
      if (decisions != nullptr) std::fclose(decisions);
      return more.status();
    }
    if (!*more) break;
    Item& item = items.emplace_back();
    item.row = t.row;
    item.transaction_id = t.txn.transaction_id;
    item.label = t.label;
    item.typology = t.label.value_or(false) ? t.typology : std::string();
    if (amlsim_folder) {
      item.sender = t.txn.sender.ref.account;
      item.receiver = t.txn.receiver.ref.account;
      item.step = (t.txn.timestamp_us - options.reader.amlsim_epoch_us) / kMicrosPerDay;
    }
    pipeline->Decide(t.txn, &item.decision);
    if (items.size() % 10'000 == 0 && options.progress) {
      options.progress(items.size(), SecondsSince(start));
    }
  }
  pipeline->Drain();
  report.seconds = SecondsSince(start);

  const ReadStats& stats = reader->stats();
  report.transactions = items.size();
  report.bad_rows = stats.bad_rows;
  report.bad_row_samples = stats.bad_row_samples;

  Rankings rankings;
  std::optional<AccountEvaluator> by_policy;
  std::optional<AccountEvaluator> by_score;
  if (amlsim_folder) {
    by_policy.emplace(*reader->account_fraud_steps());
    by_score.emplace(*reader->account_fraud_steps());
  }
  size_t decided = 0;
  for (const Item& item : items) {
    const ReplayedDecision& d = item.decision;
    decided += CountDecision(item, report) ? 1 : 0;
    if (item.label.has_value()) rankings.Add(item);
    if (by_policy) {
      by_policy->Add(item.sender, item.receiver, item.step, Flagged(d) ? 1.0 : 0.0);
      by_score->Add(item.sender, item.receiver, item.step, d.score);
    }
  }
  if (decisions != nullptr) {
    WriteDecisions(items, options.decisions_by_risk, decisions);
    if (std::fclose(decisions) != 0) return Internal(options.decisions_path + ": write failed");
  }
  report.alert_rate =
      decided == 0 ? 0 : static_cast<double>(report.outcomes[1] + report.outcomes[2]) / decided;
  EvaluateRankings(rankings, pipeline->has_model(), options.alert_rate, report);
  if (by_policy) {
    // Flags enter as scores 0 and 1: an account is flagged when one of its transactions was.
    report.policy_accounts = by_policy->EvaluateAtThreshold(1.0);
    if (pipeline->has_model()) report.score_accounts = by_score->Evaluate(options.alert_rate);
  }
  return report;
}

std::string ReplayReportJson(const ReplayReport& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject()
      .Key("input")
      .String(r.input)
      .Key("format")
      .String(CsvFormatName(r.format))
      .Key("transactions")
      .Uint(r.transactions)
      .Key("bad_rows")
      .Uint(r.bad_rows)
      .Key("errors")
      .Uint(r.errors)
      .Key("seconds")
      .Double(r.seconds)
      .Key("throughput_per_s")
      .Double(r.seconds > 0 ? static_cast<double>(r.transactions) / r.seconds : 0)
      .Key("outcomes");
  WriteOutcomes(w, r.outcomes);
  w.Key("paths")
      .BeginObject()
      .Key("model")
      .Uint(r.paths[0])
      .Key("fallback")
      .Uint(r.paths[1])
      .EndObject()
      .Key("alert_rate")
      .Double(r.alert_rate)
      .Key("policy");
  WritePolicyRef(w, r.policy);
  w.Key("model");
  if (r.model.empty()) {
    w.Null();
  } else {
    w.String(r.model);
  }
  w.Key("reasons").BeginObject();
  for (const auto& [code, n] : r.reason_counts) w.Key(code).Uint(n);
  w.EndObject();
  if (r.labelled) {
    // Top-level keys: detection by the decisions (review or block = alert).
    const DetectionReport& d = r.policy_detection;
    w.Key("positives").Uint(d.positives);
    w.Key("pr_auc");
    if (r.score_detection) {
      w.Double(d.pr_auc);
    } else {
      w.Null();
    }
    w.Key("precision").Double(d.precision).Key("recall").Double(d.recall).Key("f1").Double(d.f1);
    w.Key("recall_by_typology").BeginObject();
    for (const auto& [name, t] : d.by_typology) {
      w.Key(name.empty() ? "unknown" : name).Double(t.recall());
    }
    w.EndObject();
    w.Key("detection");
    WriteDetectionJson(w, d);
    if (r.score_detection) {
      w.Key("score_detection");
      WriteDetectionJson(w, *r.score_detection);
    }
    if (r.anomaly_detection) {
      w.Key("anomaly_detection");
      WriteDetectionJson(w, *r.anomaly_detection);
    }
    if (r.risk_detection) {
      w.Key("risk_detection");
      WriteDetectionJson(w, *r.risk_detection);
    }
  }
  if (r.policy_accounts) {
    w.Key("accounts");
    WriteAccountJson(w, *r.policy_accounts);
  }
  if (r.score_accounts) {
    w.Key("score_accounts");
    WriteAccountJson(w, *r.score_accounts);
  }
  w.Key("bad_row_samples").BeginArray();
  for (const BadRow& b : r.bad_row_samples) {
    w.BeginObject().Key("line").Uint(b.line).Key("message").String(b.message).EndObject();
  }
  w.EndArray().Key("error_samples").BeginArray();
  for (const std::string& e : r.error_samples) w.String(e);
  w.EndArray().EndObject();
  return out;
}

std::string ReplayReportText(const ReplayReport& r) {
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "%zu transactions (%zu bad rows, %zu refused) in %.2f s: %.0f per second\n"
                "outcomes: allow %zu, review %zu, block %zu (alert rate %s); path: model %zu, "
                "fallback %zu\npolicy %s (%s), model %s\n",
                r.transactions, r.bad_rows, r.errors, r.seconds,
                r.seconds > 0 ? static_cast<double>(r.transactions) / r.seconds : 0, r.outcomes[0],
                r.outcomes[1], r.outcomes[2], Percent(r.alert_rate).c_str(), r.paths[0], r.paths[1],
                r.policy.version.c_str(), r.policy.sha256.substr(0, 12).c_str(),
                r.model.empty() ? "none" : r.model.c_str());
  out += buf;
  if (r.labelled) out += DetectionText("decisions (review or block)", r.policy_detection);
  if (r.score_detection) {
    std::snprintf(
        buf, sizeof buf, "model score at %s alert rate",
        Percent(r.score_detection->rows == 0
                    ? 0
                    : static_cast<double>(r.score_detection->flagged) / r.score_detection->rows)
            .c_str());
    out += DetectionText(buf, *r.score_detection);
  }
  if (r.anomaly_detection) out += DetectionText("anomaly score", *r.anomaly_detection);
  if (r.risk_detection) out += DetectionText("risk", *r.risk_detection);
  if (r.policy_accounts) out += AccountText("accounts (review or block)", *r.policy_accounts);
  if (r.score_accounts) out += AccountText("accounts (model score)", *r.score_accounts);
  for (const BadRow& b : r.bad_row_samples) {
    out += "bad row at line " + std::to_string(b.line) + ": " + b.message + "\n";
  }
  for (const std::string& e : r.error_samples) out += "refused: " + e + "\n";
  return out;
}

}  // namespace verdict::training
