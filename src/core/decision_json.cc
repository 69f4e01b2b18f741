#include "core/decision_json.h"

namespace verdict {

void WriteDecisionJson(const Decision& d, JsonWriter& w) {
  w.BeginObject();
  w.Key("decision_id").String(d.decision_id.ToString());
  w.Key("transaction_id").String(d.transaction_id);
  w.Key("outcome").String(OutcomeName(d.outcome));
  w.Key("score").Double(d.score);
  if (d.risk) w.Key("risk").Double(*d.risk);
  if (d.anomaly) w.Key("anomaly").Double(*d.anomaly);
  w.Key("path").String(DecisionPathName(d.path));
  if (!d.trace.trace_id.empty()) w.Key("trace_id").String(d.trace.trace_id);
  w.Key("reasons").BeginArray();
  for (const Reason& r : d.reasons) {
    w.BeginObject().Key("code").String(r.code).Key("rule").String(r.rule);
    w.Key("message").String(r.message).EndObject();
  }
  w.EndArray();
  w.Key("contributions").BeginArray();
  for (const Contribution& c : d.contributions) {
    w.BeginObject().Key("feature").String(c.feature).Key("value").Double(c.value);
    w.Key("contribution").Double(c.contribution).EndObject();
  }
  w.EndArray();
  if (!d.anomaly_contributions.empty()) {
    w.Key("anomaly_contributions").BeginArray();
    for (const Contribution& c : d.anomaly_contributions) {
      w.BeginObject().Key("feature").String(c.feature).Key("value").Double(c.value);
      w.Key("contribution").Double(c.contribution).EndObject();
    }
    w.EndArray();
  }
  w.Key("model");
  if (d.model.name.empty()) {
    w.Null();
  } else {
    w.BeginObject().Key("name").String(d.model.name).Key("version").String(d.model.version);
    w.Key("sha256").String(d.model.sha256).EndObject();
  }
  w.Key("policy").BeginObject().Key("version").String(d.policy.version);
  w.Key("sha256").String(d.policy.sha256).EndObject();
  const StageTimings& t = d.timings;
  w.Key("timings_us").BeginObject();
  w.Key("queue").Int(t.queue_us).Key("features").Int(t.features_us).Key("model").Int(t.model_us);
  w.Key("policy").Int(t.policy_us).Key("journal").Int(t.journal_us).Key("total").Int(t.total_us);
  w.EndObject();
  w.EndObject();
}

std::string DecisionToJson(const Decision& decision) {
  std::string out;
  JsonWriter w(out);
  WriteDecisionJson(decision, w);
  return out;
}

}  // namespace verdict
