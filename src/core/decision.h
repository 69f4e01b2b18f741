// Decision: the engine's answer for one transaction, as stored and as returned (DESIGN.md §7).
// Value type, built by the pipeline and read-only afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/uuid.h"

namespace verdict {

enum class Outcome { kAllow = 0, kReview = 1, kBlock = 2 };  // ordered by severity
std::string_view OutcomeName(Outcome outcome);

enum class DecisionPath { kModel, kFallback };
std::string_view DecisionPathName(DecisionPath path);

struct Reason {
  std::string code;     // stable, upper-case, e.g. "STRUCTURING"
  std::string rule;     // the rule that fired, e.g. "structuring_24h"
  std::string message;  // for a human: what was seen
};

struct Contribution {
  std::string feature;
  double value = 0;         // the feature's value for this transaction
  double contribution = 0;  // its SHAP contribution to the margin
};

struct ModelRef {
  std::string name;
  std::string version;
  std::string sha256;
};

struct PolicyRef {
  std::string version;
  std::string sha256;
};

struct StageTimings {
  int64_t queue_us = 0;
  int64_t features_us = 0;
  int64_t model_us = 0;
  int64_t policy_us = 0;
  int64_t journal_us = 0;
  int64_t total_us = 0;
};

// The W3C trace a decision belongs to (docs/tracing.md). `trace_id` (32 lower-case hex; empty:
// not traced) is journaled and answered; `span_id` (16 hex, the engine's decision span) and
// `sampled` go only into the answer's traceparent header: a stored decision has neither.
struct TraceRef {
  std::string trace_id;
  std::string span_id;
  bool sampled = false;
};

struct Decision {
  Uuid decision_id;
  std::string transaction_id;
  Outcome outcome = Outcome::kAllow;
  double score = 0;  // the supervised model's
  // With a model that has them (model directory's anomaly.txt, risk.json): the anomaly score
  // and the one risk to rank by (the score when there is no calibration). Journaled (record
  // layout 5); records written before that layout have neither.
  std::optional<double> anomaly;
  std::optional<double> risk;
  DecisionPath path = DecisionPath::kModel;
  std::vector<Reason> reasons;
  std::vector<Contribution> contributions;
  // The features that isolate this transaction in the anomaly model (review and block only).
  std::vector<Contribution> anomaly_contributions;
  ModelRef model;
  PolicyRef policy;
  StageTimings timings;
  TraceRef trace = {};
};

}  // namespace verdict
