#include "policy/fixed_rules.h"

#include <algorithm>
#include <cstdio>

#include "common/sha256.h"

namespace verdict {
namespace {

std::string FormatScore(double score) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", score);
  return buf;
}

}  // namespace

Result<std::shared_ptr<const FixedRules>> FixedRules::Create(
    const FixedRulesOptions& options, std::span<const std::string_view> feature_names) {
  std::shared_ptr<FixedRules> rules(new FixedRules());
  rules->options_ = options;
  rules->block_accounts_.insert(options.block_accounts.begin(), options.block_accounts.end());
  FeatureView schema{{}, feature_names, {}};
  auto index = schema.IndexOf("sender_out_count_1h");
  if (!index) return InvalidArgument("feature schema lacks sender_out_count_1h");
  rules->sender_count_1h_index_ = *index;
  if (!(options.model_review_score <= options.model_block_score)) {
    return InvalidArgument("rules.model_review_score must not exceed rules.model_block_score",
                           "rules.model_review_score");
  }

  // The canonical text is what the version hash covers: same rules, same hash.
  std::string canonical = "fixed-rules v1\n";
  std::vector<std::string> amounts;
  for (const Money& m : options.review_amounts) amounts.push_back(m.ToString());
  std::sort(amounts.begin(), amounts.end());
  for (const auto& a : amounts) canonical += "review_amount " + a + "\n";
  std::vector<std::string> blocked(rules->block_accounts_.begin(), rules->block_accounts_.end());
  std::sort(blocked.begin(), blocked.end());
  for (const auto& b : blocked) canonical += "block_account " + b + "\n";
  canonical +=
      "velocity_review_count_1h " + std::to_string(options.velocity_review_count_1h) + "\n";
  canonical += "model_review_score " + FormatScore(options.model_review_score) + "\n";
  canonical += "model_block_score " + FormatScore(options.model_block_score) + "\n";
  rules->ref_ = PolicyRef{"fixed-1", Sha256Hex(canonical)};
  return std::shared_ptr<const FixedRules>(std::move(rules));
}

PolicyResult FixedRules::Evaluate(const Transaction& txn, const FeatureView& features,
                                  std::optional<double> model_score) const {
  PolicyResult result;
  auto raise = [&result](Outcome outcome, std::string code, std::string rule, std::string message) {
    result.outcome = std::max(result.outcome, outcome);
    result.reasons.push_back({std::move(code), std::move(rule), std::move(message)});
  };
  for (const auto* party : {&txn.sender, &txn.receiver}) {
    if (block_accounts_.contains(party->ref.account)) {
      raise(Outcome::kBlock, "BLOCKED_ACCOUNT", "block_list",
            std::string(party == &txn.sender ? "sender" : "receiver") + " account " +
                party->ref.account + " is on the block list");
    }
  }
  for (const Money& threshold : options_.review_amounts) {
    if (&threshold.currency() == &txn.amount.currency() &&
        txn.amount.minor_units() >= threshold.minor_units()) {
      raise(Outcome::kReview, "AMOUNT_THRESHOLD", "amount_threshold",
            "amount " + txn.amount.ToString() + " is at or above the review threshold " +
                threshold.ToString());
    }
  }
  if (options_.velocity_review_count_1h > 0) {
    const double sent = features.values[sender_count_1h_index_];
    if (sent >= static_cast<double>(options_.velocity_review_count_1h)) {
      raise(Outcome::kReview, "HIGH_VELOCITY", "velocity_1h",
            "sender made " + std::to_string(static_cast<int64_t>(sent)) +
                " transfers in the hour before this one (limit " +
                std::to_string(options_.velocity_review_count_1h) + ")");
    }
  }
  if (model_score) {
    if (*model_score >= options_.model_block_score) {
      raise(Outcome::kBlock, "MODEL_SCORE_HIGH", "model_block_band",
            "model score " + FormatScore(*model_score) + " is at or above " +
                FormatScore(options_.model_block_score));
    } else if (*model_score >= options_.model_review_score) {
      raise(Outcome::kReview, "MODEL_SCORE_ELEVATED", "model_review_band",
            "model score " + FormatScore(*model_score) + " is at or above " +
                FormatScore(options_.model_review_score));
    }
  }
  return result;
}

}  // namespace verdict
