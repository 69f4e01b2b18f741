// ReplayPipeline: the engine's decision pipeline (features -> model -> policy -> journal) run
// over history on the calling thread: an Engine with a private temporary data directory and
// an asynchronous journal, fed with Engine::Decide in input order. Owns the engine and its
// directory (removed on destruction). Decide and Drain from one thread only.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "common/result.h"
#include "core/decision.h"
#include "core/transaction.h"
#include "engine/engine.h"
#include "engine/engine_options.h"

namespace verdict::training {

struct PipelineOptions {
  std::string config_path;  // engine TOML (rules, policy, model); empty: built-in defaults
  std::string model_path;   // model directory or .json file; overrides the config's [model]
  std::string policy_path;  // policy bundle; overrides the config's [policy]
  std::string
      work_dir;  // parent of the temporary data directory (made if missing); empty: the system's
};

// What one transaction got. Written by the journal's thread before Drain returns.
struct ReplayedDecision {
  bool ok = false;
  std::string error;  // when !ok
  Outcome outcome = Outcome::kAllow;
  DecisionPath path = DecisionPath::kFallback;
  double score = 0;
  std::optional<double> anomaly;  // with a model that has an anomaly model
  std::optional<double> risk;     // whenever the model scored
  std::vector<std::string> reason_codes;
};

class ReplayPipeline {
 public:
  static Result<std::unique_ptr<ReplayPipeline>> Create(const PipelineOptions& options);
  ~ReplayPipeline();

  // Decides `txn`; the result lands in *out (which must stay put until Drain returns).
  void Decide(const Transaction& txn, ReplayedDecision* out);
  // Waits until every decision handed to Decide is complete.
  void Drain();

  const EngineOptions& engine_options() const { return engine_->options(); }
  const PolicyRef& policy_ref() const { return policy_ref_; }
  bool has_model() const { return !engine_->options().model.path.empty(); }

 private:
  ReplayPipeline() = default;

  std::string data_dir_;
  MetricsRegistry metrics_;
  std::unique_ptr<Engine> engine_;
  PolicyRef policy_ref_;
  std::atomic<int64_t> outstanding_{0};
};

}  // namespace verdict::training
