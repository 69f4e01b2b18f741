// Backtest: the same history through two pipelines that differ only in their policy.
#include <chrono>
#include <cstdio>
#include <deque>

#include "common/json_writer.h"
#include "training/replay.h"

namespace verdict::training {
namespace {

struct Pair {
  size_t row = 0;
  std::string transaction_id;
  std::optional<bool> label;
  std::string typology;
  ReplayedDecision before;
  ReplayedDecision after;
};

void WriteCounts(JsonWriter& w, const std::array<size_t, 3>& c) {
  w.BeginObject().Key("allow").Uint(c[0]).Key("review").Uint(c[1]).Key("block").Uint(c[2]);
  w.EndObject();
}

void WriteStrings(JsonWriter& w, const std::vector<std::string>& v) {
  w.BeginArray();
  for (const std::string& s : v) w.String(s);
  w.EndArray();
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out.empty() ? "-" : out;
}

}  // namespace

Result<BacktestReport> Backtest(const BacktestOptions& options) {
  VERDICT_ASSIGN_OR_RETURN(auto reader, TransactionReader::Open(options.reader));
  VERDICT_ASSIGN_OR_RETURN(auto baseline, ReplayPipeline::Create(options.baseline));
  VERDICT_ASSIGN_OR_RETURN(auto candidate, ReplayPipeline::Create(options.candidate));
  BacktestReport report;
  report.input = options.reader.path;
  report.baseline = baseline->policy_ref();
  report.candidate = candidate->policy_ref();

  std::deque<Pair> pairs;
  LabelledTransaction t;
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, reader->Next(&t));
    if (!more) break;
    Pair& p = pairs.emplace_back();
    p.row = t.row;
    p.transaction_id = t.txn.transaction_id;
    p.label = t.label;
    p.typology = t.label.value_or(false) ? t.typology : std::string();
    baseline->Decide(t.txn, &p.before);
    candidate->Decide(t.txn, &p.after);
    if (pairs.size() % 10'000 == 0 && options.progress) {
      options.progress(
          pairs.size(),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  baseline->Drain();
  candidate->Drain();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.transactions = pairs.size();
  report.bad_rows = reader->stats().bad_rows;

  std::vector<uint8_t> flags_before, flags_after, labels;
  std::vector<std::string> typologies;
  for (const Pair& p : pairs) {
    if (!p.before.ok || !p.after.ok) {
      ++report.errors;
      continue;
    }
    const int b = static_cast<int>(p.before.outcome);
    const int a = static_cast<int>(p.after.outcome);
    ++report.before[b];
    ++report.after[a];
    ++report.matrix[b][a];
    if (a != b) {
      ++report.changed;
      if (report.examples.size() < options.max_examples) {
        report.examples.push_back({p.row, p.transaction_id, p.before.outcome, p.after.outcome,
                                   p.after.score, p.before.reason_codes, p.after.reason_codes});
      }
    }
    if (p.label.has_value()) {
      flags_before.push_back(p.before.outcome != Outcome::kAllow);
      flags_after.push_back(p.after.outcome != Outcome::kAllow);
      labels.push_back(*p.label);
      typologies.push_back(p.typology);
    }
  }
  report.labelled = !labels.empty();
  if (report.labelled) {
    report.detection_before = EvaluateFlags(flags_before, labels, typologies);
    report.detection_after = EvaluateFlags(flags_after, labels, typologies);
  }
  return report;
}

std::string BacktestReportJson(const BacktestReport& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject()
      .Key("input")
      .String(r.input)
      .Key("transactions")
      .Uint(r.transactions)
      .Key("bad_rows")
      .Uint(r.bad_rows)
      .Key("errors")
      .Uint(r.errors)
      .Key("seconds")
      .Double(r.seconds)
      .Key("baseline")
      .BeginObject()
      .Key("version")
      .String(r.baseline.version)
      .Key("sha256")
      .String(r.baseline.sha256)
      .Key("outcomes");
  WriteCounts(w, r.before);
  w.EndObject()
      .Key("candidate")
      .BeginObject()
      .Key("version")
      .String(r.candidate.version)
      .Key("sha256")
      .String(r.candidate.sha256)
      .Key("outcomes");
  WriteCounts(w, r.after);
  w.EndObject().Key("changed").Uint(r.changed).Key("matrix").BeginObject();
  for (int b = 0; b < 3; ++b) {
    w.Key(OutcomeName(static_cast<Outcome>(b))).BeginObject();
    for (int a = 0; a < 3; ++a) w.Key(OutcomeName(static_cast<Outcome>(a))).Uint(r.matrix[b][a]);
    w.EndObject();
  }
  w.EndObject().Key("examples").BeginArray();
  for (const BacktestChange& c : r.examples) {
    w.BeginObject()
        .Key("row")
        .Uint(c.row)
        .Key("transaction_id")
        .String(c.transaction_id)
        .Key("before")
        .String(OutcomeName(c.before))
        .Key("after")
        .String(OutcomeName(c.after))
        .Key("score")
        .Double(c.score)
        .Key("reasons_before");
    WriteStrings(w, c.reasons_before);
    w.Key("reasons_after");
    WriteStrings(w, c.reasons_after);
    w.EndObject();
  }
  w.EndArray();
  if (r.labelled) {
    w.Key("detection_before");
    WriteDetectionJson(w, r.detection_before);
    w.Key("detection_after");
    WriteDetectionJson(w, r.detection_after);
  }
  w.EndObject();
  return out;
}

std::string BacktestReportText(const BacktestReport& r) {
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "%zu transactions (%zu bad rows, %zu refused) in %.2f s\n"
                "baseline  %s (%s): allow %zu, review %zu, block %zu\n"
                "candidate %s (%s): allow %zu, review %zu, block %zu\n"
                "%zu decisions change\n\n  before \\ after    allow   review    block\n",
                r.transactions, r.bad_rows, r.errors, r.seconds, r.baseline.version.c_str(),
                r.baseline.sha256.substr(0, 12).c_str(), r.before[0], r.before[1], r.before[2],
                r.candidate.version.c_str(), r.candidate.sha256.substr(0, 12).c_str(), r.after[0],
                r.after[1], r.after[2], r.changed);
  out += buf;
  for (int b = 0; b < 3; ++b) {
    std::snprintf(buf, sizeof buf, "  %-16s %8zu %8zu %8zu\n",
                  std::string(OutcomeName(static_cast<Outcome>(b))).c_str(), r.matrix[b][0],
                  r.matrix[b][1], r.matrix[b][2]);
    out += buf;
  }
  if (!r.examples.empty()) out += "\nexamples:\n";
  for (const BacktestChange& c : r.examples) {
    std::snprintf(buf, sizeof buf, "  row %zu %s: %s -> %s (score %.3f) reasons %s -> %s\n", c.row,
                  c.transaction_id.c_str(), std::string(OutcomeName(c.before)).c_str(),
                  std::string(OutcomeName(c.after)).c_str(), c.score,
                  Join(c.reasons_before).c_str(), Join(c.reasons_after).c_str());
    out += buf;
  }
  if (r.labelled) {
    std::snprintf(buf, sizeof buf,
                  "\nrecall (review or block): %.4f -> %.4f; precision %.4f -> %.4f\n",
                  r.detection_before.recall, r.detection_after.recall, r.detection_before.precision,
                  r.detection_after.precision);
    out += buf;
    for (const auto& [name, t] : r.detection_after.by_typology) {
      auto it = r.detection_before.by_typology.find(name);
      const double before = it == r.detection_before.by_typology.end() ? 0 : it->second.recall();
      std::snprintf(buf, sizeof buf, "  %-22s %.4f -> %.4f\n",
                    name.empty() ? "unknown" : name.c_str(), before, t.recall());
      out += buf;
    }
  }
  return out;
}

}  // namespace verdict::training
