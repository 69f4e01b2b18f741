// FixedRules: the skeleton's configured rule set (amount thresholds, a block list, a velocity
// limit, model-score bands), evaluated to an outcome and reason codes. Immutable after
// Create; thread-safe. The policy language (policy_bundle.h) replaces it behind the same
// Evaluate.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/result.h"
#include "core/decision.h"
#include "core/feature_view.h"
#include "core/transaction.h"

namespace verdict {

struct FixedRulesOptions {
  // Review when the amount is at or above the threshold of its currency; currencies without
  // a threshold are not checked by this rule (no silent conversion).
  std::vector<Money> review_amounts;
  // Block when the sender or the receiver account is listed.
  std::vector<std::string> block_accounts;
  // Review when the sender already sent this many transactions in the last hour (0: off).
  int64_t velocity_review_count_1h = 20;
  // Model score bands (used only when a model scored the transaction).
  double model_review_score = 0.7;
  double model_block_score = 0.95;
};

struct PolicyResult {
  Outcome outcome = Outcome::kAllow;
  std::vector<Reason> reasons;
};

class FixedRules {
 public:
  // `schema` gives the feature names the rules refer to; a missing name is an error.
  static Result<std::shared_ptr<const FixedRules>> Create(
      const FixedRulesOptions& options, std::span<const std::string_view> feature_names);

  // `model_score` is empty on the fallback path (no model, or the model was skipped).
  PolicyResult Evaluate(const Transaction& txn, const FeatureView& features,
                        std::optional<double> model_score) const;

  // "fixed-1" and the SHA-256 of the canonical text of the configured rules.
  const PolicyRef& ref() const { return ref_; }

 private:
  FixedRules() = default;

  FixedRulesOptions options_;
  std::unordered_set<std::string> block_accounts_;
  size_t sender_count_1h_index_ = 0;
  PolicyRef ref_;
};

}  // namespace verdict
