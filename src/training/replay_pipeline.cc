#include "training/replay_pipeline.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/clock.h"
#include "training/model_directory.h"

namespace verdict::training {

Result<std::unique_ptr<ReplayPipeline>> ReplayPipeline::Create(const PipelineOptions& options) {
  EngineOptions engine_options;
  if (!options.config_path.empty()) {
    VERDICT_ASSIGN_OR_RETURN(engine_options, LoadEngineOptions(options.config_path));
  }
  if (!options.model_path.empty()) {
    VERDICT_ASSIGN_OR_RETURN(engine_options.model, ModelOptionsFromPath(options.model_path));
  }
  if (!options.policy_path.empty()) engine_options.policy_path = options.policy_path;
  // One worker (unused: decisions run on the caller's thread) and no fsync: a replay measures
  // the pipeline, and its journal is thrown away.
  engine_options.sched.workers = 1;
  // No deadline here: a slow model stage (a busy machine) must not open the circuit breaker
  // and send the rest of the history down the fallback path.
  engine_options.model_budget_us = 10'000'000;
  // Nor drift watch: history is not live traffic (its early rows, with no account state yet,
  // differ from the training distribution by design), and a freeze would drop the model.
  engine_options.drift.enabled = false;
  engine_options.journal.sync = false;
  engine_options.journal.kek_file.clear();

  std::unique_ptr<ReplayPipeline> p(new ReplayPipeline());
  std::error_code ec;
  const std::filesystem::path parent = options.work_dir.empty()
                                           ? std::filesystem::temp_directory_path(ec)
                                           : std::filesystem::path(options.work_dir);
  if (!options.work_dir.empty()) {  // a folder named for the work is made, parents and all
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      return InvalidArgument("work directory " + options.work_dir + ": " + ec.message(),
                             "work-dir");
    }
  }
  std::string pattern = (parent / "verdict-replay-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Internal(pattern +
                    ": cannot create a temporary data directory: " + std::strerror(errno));
  }
  p->data_dir_ = pattern;
  engine_options.data_dir = p->data_dir_;
  auto engine = Engine::Create(engine_options, p->metrics_, SystemClock::Instance());
  if (!engine.ok()) return engine.status();
  p->engine_ = std::move(engine).value();
  p->policy_ref_ = p->engine_->policy()->ref();
  return p;
}

ReplayPipeline::~ReplayPipeline() {
  if (engine_) {
    Drain();
    engine_.reset();
  }
  if (!data_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }
}

void ReplayPipeline::Decide(const Transaction& txn, ReplayedDecision* out) {
  outstanding_.fetch_add(1, std::memory_order_relaxed);
  engine_->Decide(txn, Caller{}, SystemClock::Instance().MonotonicNanos(), false,
                  [this, out](Result<Decision> d) {
                    if (d.ok()) {
                      out->ok = true;
                      out->outcome = d->outcome;
                      out->path = d->path;
                      out->score = d->score;
                      out->anomaly = d->anomaly;
                      out->risk = d->risk;
                      for (const Reason& r : d->reasons) out->reason_codes.push_back(r.code);
                    } else {
                      out->error = d.status().ToString();
                    }
                    outstanding_.fetch_sub(1, std::memory_order_release);
                  });
}

void ReplayPipeline::Drain() {
  while (outstanding_.load(std::memory_order_acquire) > 0) std::this_thread::yield();
}

}  // namespace verdict::training
