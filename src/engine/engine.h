// Engine: owns one of each pipeline component (account store, rules, workers) and runs
// features -> model -> policy for each transaction. Thread-safe: Submit and Decide may be
// called from any thread; per-account consistency comes from the store's stripe locks.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "common/uuid.h"
#include "core/decision.h"
#include "core/transaction.h"
#include "engine/engine_options.h"
#include "features/account_store.h"
#include "policy/fixed_rules.h"
#include "sched/worker_pool.h"

namespace verdict {

class Engine {
 public:
  using DecisionCallback = std::function<void(Result<Decision>)>;
  using BatchCallback = std::function<void(std::vector<Result<Decision>>)>;

  static Result<std::unique_ptr<Engine>> Create(const EngineOptions& options,
                                                MetricsRegistry& metrics, const Clock& clock);
  ~Engine();

  // Queues one transaction; `done` runs on a worker thread. `received_ns` is the monotonic
  // time the request arrived (for the queue timing). False when the queue is full.
  bool Submit(Transaction txn, int64_t received_ns, DecisionCallback done);
  // Queues a batch as one task, decided in order (so two items on one account see each
  // other, as separate requests would). Items that failed decoding pass through unchanged.
  bool SubmitBatch(std::vector<Result<Transaction>> items, int64_t received_ns, BatchCallback done);
  // Decides on the calling thread.
  Result<Decision> Decide(const Transaction& txn, int64_t received_ns);

  // Readiness for /readyz; `why` says what is wrong when false.
  bool Ready(std::string* why) const;
  const EngineOptions& options() const { return options_; }

 private:
  Engine(const EngineOptions& options, MetricsRegistry& metrics, const Clock& clock);

  struct StageMetrics {
    Histogram* queue;
    Histogram* features;
    Histogram* model;
    Histogram* policy;
    Histogram* total;
    Counter* decisions[3][2];  // [outcome][path]
  };

  EngineOptions options_;
  const Clock& clock_;
  UuidV7Generator ids_;
  AccountStore accounts_;
  std::shared_ptr<const FixedRules> rules_;
  StageMetrics metrics_{};
  // Last, so that it stops (and drains) before the members its tasks use are destroyed.
  std::unique_ptr<WorkerPool> workers_;
};

}  // namespace verdict
