#include "monitor/drift_json.h"

namespace verdict::monitor {
namespace {

void WriteWindow(JsonWriter& w, const WindowReport& window, const DriftMonitor& monitor,
                 const DriftOptions& options) {
  w.BeginObject();
  w.Key("window").String(window.name);
  w.Key("span_s").Int(window.span_s);
  w.Key("decisions").Uint(window.decisions);
  w.Key("new_accounts").Uint(window.new_accounts);
  w.Key("judged").Bool(window.judged);
  w.Key("drift_score").Double(window.drift_score);
  w.Key("score");
  WriteDriftStatistics(w, window.score, options);
  w.Key("features").BeginObject();
  for (size_t i = 0; i < window.features.size() && i < monitor.feature_names().size(); ++i) {
    w.Key(monitor.feature_names()[i]);
    WriteDriftStatistics(w, window.features[i], options);
  }
  w.EndObject();
  w.EndObject();
}

void WriteThresholds(JsonWriter& w, const DriftOptions& options) {
  w.BeginObject();
  w.Key("l1").Double(options.l1);
  w.Key("l2").Double(options.l2);
  w.Key("l3").Double(options.l3);
  w.Key("min_account_history_days").Double(options.min_account_history_days);
  w.Key("escalate_after_windows").Int(options.escalate_after_windows);
  w.Key("freeze_model").Bool(options.freeze_model);
  w.Key("weights").BeginObject();
  w.Key("kl").Double(options.weights.kl);
  w.Key("js").Double(options.weights.js);
  w.Key("psi").Double(options.weights.psi);
  w.EndObject();
  w.EndObject();
}

}  // namespace

std::vector<std::string_view> DriftFlags(const DriftStatistics& s, const DriftOptions& options) {
  std::vector<std::string_view> flags;
  if (s.count < options.min_count) return flags;
  if (s.psi >= options.psi_alert) {
    flags.push_back("psi_alert");
  } else if (s.psi >= options.psi_warn) {
    flags.push_back("psi_warn");
  }
  if (s.ks_p_value < options.ks_p_value) flags.push_back("ks");
  if (s.wasserstein >= options.wasserstein) flags.push_back("wasserstein");
  if (s.js >= options.js) flags.push_back("js");
  return flags;
}

void WriteDriftStatistics(JsonWriter& w, const DriftStatistics& s, const DriftOptions& options) {
  w.BeginObject();
  w.Key("count").Uint(s.count);
  w.Key("missing").Uint(s.missing);
  w.Key("psi").Double(s.psi);
  w.Key("kl").Double(s.kl);
  w.Key("js").Double(s.js);
  w.Key("ks").Double(s.ks);
  w.Key("ks_p_value").Double(s.ks_p_value);
  w.Key("wasserstein").Double(s.wasserstein);
  w.Key("exact").Bool(s.exact);
  w.Key("flags").BeginArray();
  for (std::string_view f : DriftFlags(s, options)) w.String(f);
  w.EndArray();
  w.EndObject();
}

std::string DriftReportToJson(const DriftReport& report, const DriftOptions& options) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("model").BeginObject();
  w.Key("name").String(report.model_name);
  w.Key("version").String(report.model_version);
  w.EndObject();
  w.Key("input").String(report.input);
  w.Key("rows").Uint(report.rows);
  w.Key("reference_rows").Uint(report.reference_rows);
  w.Key("level").Int(report.level);
  w.Key("drift_score").Double(report.drift_score);
  w.Key("judged").Bool(report.judged);
  w.Key("min_count").Uint(options.min_count);
  w.Key("thresholds");
  WriteThresholds(w, options);
  w.Key("drifted_features").BeginArray();
  for (const VariableDrift& f : report.features) {
    if (f.drifted()) w.String(f.name);
  }
  w.EndArray();
  w.Key("score");
  WriteDriftStatistics(w, report.score.statistics, options);
  w.Key("features").BeginObject();
  for (const VariableDrift& f : report.features) {
    w.Key(f.name);
    WriteDriftStatistics(w, f.statistics, options);
  }
  w.EndObject();
  w.EndObject();
  return out;
}

std::string DriftSnapshotToJson(const DriftSnapshot& snapshot, const DriftMonitor& monitor,
                                const DriftOptions& options) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("model").BeginObject();
  w.Key("name").String(snapshot.model_name);
  w.Key("version").String(snapshot.model_version);
  w.EndObject();
  w.Key("evaluated_at_us").Int(snapshot.evaluated_at_us);
  w.Key("level").Int(snapshot.level);
  w.Key("drift_score").Double(snapshot.drift_score);
  w.Key("frozen").Bool(snapshot.frozen);
  w.Key("thresholds");
  WriteThresholds(w, options);
  w.Key("alerts").BeginArray();
  for (const DriftAlert& a : snapshot.alerts) {
    w.BeginObject();
    w.Key("kind").String(a.kind);
    w.Key("since_us").Int(a.since_us);
    w.Key("drift_score").Double(a.drift_score);
    w.Key("message").String(a.message);
    w.EndObject();
  }
  w.EndArray();
  w.Key("events").BeginArray();
  for (const DriftEvent& e : snapshot.events) {
    w.BeginObject();
    w.Key("time_us").Int(e.time_us);
    w.Key("level").Int(e.level);
    w.Key("drift_score").Double(e.drift_score);
    w.Key("what").String(e.what);
    w.EndObject();
  }
  w.EndArray();
  w.Key("retrain").BeginObject();
  w.Key("runs").Uint(snapshot.retrain.runs);
  w.Key("last_pid").Int(snapshot.retrain.last_pid);
  w.Key("last_status").String(snapshot.retrain.last_status);
  w.EndObject();
  w.Key("windows").BeginArray();
  for (const WindowReport& window : snapshot.windows) WriteWindow(w, window, monitor, options);
  w.EndArray();
  w.Key("level_snapshot").BeginObject();
  w.Key("at_us").Int(snapshot.level_snapshot_us);
  w.Key("windows").BeginArray();
  for (const WindowReport& window : snapshot.level_snapshot) {
    // Only the summary: the full statistics are in "windows" while the drift lasts.
    w.BeginObject();
    w.Key("window").String(window.name);
    w.Key("decisions").Uint(window.decisions);
    w.Key("drift_score").Double(window.drift_score);
    w.Key("score");
    WriteDriftStatistics(w, window.score, options);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return out;
}

}  // namespace verdict::monitor
