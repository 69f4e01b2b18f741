#include "cli/audit_record_text.h"

#include <fmt/format.h>

#include "common/rfc3339.h"
#include "features/feature_catalog.h"
#include "features/feature_vector.h"
#include "journal/exporter.h"

namespace verdict {
namespace {

// The name of feature `index`: as the record names it, else as this binary's schema does when
// the record has that schema, else by its position (a record from another schema version).
std::string AuditFeatureName(const journal::JournalRecord& record, size_t index) {
  if (index < record.feature_names.size()) return record.feature_names[index];
  if (record.feature_schema_version == kFeatureSchemaVersion && index < kFeatureNames.size()) {
    return std::string(kFeatureNames[index]);
  }
  return fmt::format("feature_{}", index);
}

}  // namespace

std::string AuditRecordText(const journal::JournalRecord& record) {
  if (record.kind != journal::RecordKind::kDecision) {
    // Admin events have no features; their JSON line is already one short line.
    return journal::RecordToJson(record) + "\n";
  }
  const Decision& d = record.decision;
  std::string out;
  auto line = [&out](std::string_view label, std::string_view value) {
    out += fmt::format("{:<14}{}\n", label, value);
  };
  line("decision", d.decision_id.ToString());
  line("transaction", d.transaction_id);
  line("record", fmt::format("{} of the journal", record.seq));
  line("tenant", fmt::format("{} (principal {})", record.tenant, record.principal));
  line("timestamp", FormatRfc3339Micros(record.timestamp_us));
  line("decided at", FormatRfc3339Micros(record.decided_at_us));
  line("outcome", fmt::format("{} (score {}, path {})", OutcomeName(d.outcome), d.score,
                              DecisionPathName(d.path)));
  line("model", d.model.name.empty() ? "none" : d.model.name + " v" + d.model.version);
  line("policy", "v" + d.policy.version);
  if (!d.trace.trace_id.empty()) line("trace", d.trace.trace_id);
  out += "reasons:\n";
  if (d.reasons.empty()) out += "  (none)\n";
  for (const Reason& r : d.reasons) {
    out += fmt::format("  {} ({}): {}\n", r.code, r.rule, r.message);
  }
  if (!d.contributions.empty()) {
    out += "contributions:\n";
    for (const Contribution& c : d.contributions) {
      // The human name first (features/feature_catalog.h, as the console's chart shows it).
      out += fmt::format("  {}: {} = {} ({:+})\n", HumanFeatureName(c.feature), c.feature, c.value,
                         c.contribution);
    }
  }
  line("input", record.canonical_input);
  out += fmt::format("features ({}):\n", record.feature_schema_version);
  for (size_t i = 0; i < record.features.size(); ++i) {
    out += fmt::format("  {} = {}\n", AuditFeatureName(record, i), record.features[i]);
  }
  return out;
}

}  // namespace verdict
