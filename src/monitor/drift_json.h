// JSON forms of drift statistics and of the live monitor's snapshot (GET /v1/drift), shared
// by the HTTP route and `verdict drift report --json`. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/json_writer.h"
#include "monitor/drift_monitor.h"
#include "monitor/drift_options.h"
#include "monitor/drift_report.h"
#include "monitor/drift_statistics.h"

namespace verdict::monitor {

// {"count":..,"missing":..,"psi":..,"kl":..,"js":..,"ks":..,"ks_p_value":..,
//  "wasserstein":..,"exact":..,"flags":["psi_alert","ks",...]}
void WriteDriftStatistics(JsonWriter& w, const DriftStatistics& s, const DriftOptions& options);
// The flags a feature's statistics raise against the thresholds: "psi_warn" or "psi_alert",
// "ks" (p below ks_p_value), "wasserstein", "js". Only for count >= min_count.
std::vector<std::string_view> DriftFlags(const DriftStatistics& s, const DriftOptions& options);

// `verdict drift report --json`: {"model":{..},"input":..,"rows":..,"level":..,"drift_score":..,
//  "judged":..,"drifted_features":[names],"score":{statistics},"features":{name:{statistics}}}
std::string DriftReportToJson(const DriftReport& report, const DriftOptions& options);

std::string DriftSnapshotToJson(const DriftSnapshot& snapshot, const DriftMonitor& monitor,
                                const DriftOptions& options);

}  // namespace verdict::monitor
