// ActivePolicy: the policy decisions are made with: a compiled policy bundle when one is
// configured or ingested, otherwise the fixed rules. Immutable; the engine swaps whole
// instances atomically and each decision holds the one it started with (I4). Thread-safe.
#pragma once

#include <memory>
#include <optional>

#include "core/decision.h"
#include "core/feature_view.h"
#include "core/transaction.h"
#include "policy/compiled_policy.h"
#include "policy/fixed_rules.h"

namespace verdict {

class ActivePolicy {
 public:
  explicit ActivePolicy(std::shared_ptr<const FixedRules> fixed) : fixed_(std::move(fixed)) {}
  explicit ActivePolicy(std::shared_ptr<const CompiledPolicy> compiled)
      : compiled_(std::move(compiled)) {}

  PolicyResult Evaluate(const Transaction& txn, const FeatureView& features,
                        std::optional<double> model_score) const {
    return compiled_ ? compiled_->Evaluate(txn, features, model_score)
                     : fixed_->Evaluate(txn, features, model_score);
  }
  const PolicyRef& ref() const { return compiled_ ? compiled_->ref() : fixed_->ref(); }
  // Null when the fixed rules are active.
  const CompiledPolicy* compiled() const { return compiled_.get(); }

 private:
  std::shared_ptr<const FixedRules> fixed_;
  std::shared_ptr<const CompiledPolicy> compiled_;
};

}  // namespace verdict
