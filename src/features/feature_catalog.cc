#include "features/feature_catalog.h"

#include <array>

#include "features/feature_vector.h"

namespace verdict {
namespace {

// In schema order; feature_catalog_test.cc checks that every name of kFeatureNames is here.
constexpr std::array<FeatureLabel, kFeatureCount> kCatalog = {{
    {"amount", "Amount", "in its currency"},
    {"amount_usd", "Amount in USD", "USD"},
    {"amount_is_round", "Round amount", "yes/no"},
    {"amount_near_threshold", "Just below a reporting threshold", "yes/no"},
    {"cross_border", "Cross-border", "yes/no"},
    {"sender_high_risk_country", "Sender in a high-risk country", "yes/no"},
    {"receiver_high_risk_country", "Receiver in a high-risk country", "yes/no"},
    {"channel_code", "Channel", "code"},
    {"type_code", "Transaction type", "code"},
    {"hour_of_day", "Hour of day", "hour UTC"},
    {"day_of_week", "Day of week", "0 = Monday"},
    {"is_weekend", "Weekend", "yes/no"},
    {"late_event", "Arrived late", "yes/no"},
    {"sender_out_count_1h", "Sender's payments out, 1 h", "count"},
    {"sender_out_sum_1h", "Sender's total out, 1 h", "USD"},
    {"sender_out_max_1h", "Sender's largest payment out, 1 h", "USD"},
    {"sender_out_count_24h", "Sender's payments out, 24 h", "count"},
    {"sender_out_sum_24h", "Sender's total out, 24 h", "USD"},
    {"sender_out_max_24h", "Sender's largest payment out, 24 h", "USD"},
    {"sender_out_count_7d", "Sender's payments out, 7 days", "count"},
    {"sender_out_sum_7d", "Sender's total out, 7 days", "USD"},
    {"sender_out_max_7d", "Sender's largest payment out, 7 days", "USD"},
    {"sender_out_count_30d", "Sender's payments out, 30 days", "count"},
    {"sender_out_sum_30d", "Sender's total out, 30 days", "USD"},
    {"sender_out_max_30d", "Sender's largest payment out, 30 days", "USD"},
    {"sender_amount_ratio_mean_30d", "Amount vs sender's mean, 30 days", "ratio"},
    {"sender_amount_ratio_max_30d", "Amount vs sender's largest, 30 days", "ratio"},
    {"sender_amount_log_zscore", "Amount unusual for the sender", "z-score"},
    {"sender_near_threshold_count_24h", "Sender's near-threshold payments, 24 h", "count"},
    {"sender_near_threshold_sum_24h", "Sender's near-threshold total, 24 h", "USD"},
    {"sender_near_threshold_count_7d", "Sender's near-threshold payments, 7 days", "count"},
    {"sender_round_count_24h", "Sender's round amounts, 24 h", "count"},
    {"pair_first_time", "First payment to this receiver", "yes/no"},
    {"sender_distinct_receivers_24h", "Sender's distinct payees, 24 h", "count"},
    {"sender_distinct_receivers_7d", "Sender's distinct payees, 7 days", "count"},
    {"sender_distinct_receivers_30d", "Sender's distinct payees, 30 days", "count"},
    {"sender_new_receiver_share_7d", "Sender's share of new payees, 7 days", "share 0-1"},
    {"sender_in_count_24h", "Sender's payments in, 24 h", "count"},
    {"sender_in_sum_24h", "Sender's total in, 24 h", "USD"},
    {"sender_pass_through_ratio_24h", "Share of sender's 24 h inflow moved on", "ratio"},
    {"sender_hours_since_last_in", "Hours since sender last received", "hours"},
    {"sender_hours_since_last_out", "Hours since sender last paid", "hours"},
    {"sender_days_since_last_activity", "Sender dormant for", "days"},
    {"sender_account_age_days", "Sender's account age", "days"},
    {"receiver_in_count_1h", "Receiver's payments in, 1 h", "count"},
    {"receiver_in_sum_1h", "Receiver's total in, 1 h", "USD"},
    {"receiver_in_max_1h", "Receiver's largest payment in, 1 h", "USD"},
    {"receiver_in_count_24h", "Receiver's payments in, 24 h", "count"},
    {"receiver_in_sum_24h", "Receiver's total in, 24 h", "USD"},
    {"receiver_in_max_24h", "Receiver's largest payment in, 24 h", "USD"},
    {"receiver_in_count_7d", "Receiver's payments in, 7 days", "count"},
    {"receiver_in_sum_7d", "Receiver's total in, 7 days", "USD"},
    {"receiver_in_max_7d", "Receiver's largest payment in, 7 days", "USD"},
    {"receiver_in_count_30d", "Receiver's payments in, 30 days", "count"},
    {"receiver_in_sum_30d", "Receiver's total in, 30 days", "USD"},
    {"receiver_in_max_30d", "Receiver's largest payment in, 30 days", "USD"},
    {"receiver_amount_ratio_mean_30d", "Amount vs receiver's mean, 30 days", "ratio"},
    {"receiver_amount_ratio_max_30d", "Amount vs receiver's largest, 30 days", "ratio"},
    {"receiver_amount_log_zscore", "Amount unusual for the receiver", "z-score"},
    {"receiver_near_threshold_count_24h", "Receiver's near-threshold payments, 24 h", "count"},
    {"receiver_near_threshold_sum_24h", "Receiver's near-threshold total, 24 h", "USD"},
    {"receiver_near_threshold_count_7d", "Receiver's near-threshold payments, 7 days", "count"},
    {"receiver_distinct_senders_24h", "Receiver's distinct payers, 24 h", "count"},
    {"receiver_distinct_senders_7d", "Receiver's distinct payers, 7 days", "count"},
    {"receiver_distinct_senders_30d", "Receiver's distinct payers, 30 days", "count"},
    {"receiver_new_sender_share_7d", "Receiver's share of new payers, 7 days", "share 0-1"},
    {"receiver_out_sum_24h", "Receiver's total out, 24 h", "USD"},
    {"receiver_hours_since_last_out", "Hours since receiver last paid", "hours"},
    {"receiver_days_since_last_activity", "Receiver dormant for", "days"},
    {"receiver_account_age_days", "Receiver's account age", "days"},
    {"closes_cycle_2", "Closes a 2-account cycle, 7 days", "yes/no"},
    {"closes_cycle_3", "Closes a 3-account cycle, 7 days", "yes/no"},
    {"closes_cycle_4", "Closes a 4-account cycle, 7 days", "yes/no"},
    {"sender_unusual_transfers", "Sender's unusual transfers (fading)", "count"},
    {"receiver_unusual_transfers", "Receiver's unusual transfers (fading)", "count"},
    {"sender_peer_unusual_max", "Sender's riskiest counterparty (2 hops)", "count"},
    {"receiver_peer_unusual_max", "Receiver's riskiest counterparty (2 hops)", "count"},
}};

}  // namespace

std::optional<FeatureLabel> FindFeatureLabel(std::string_view name) {
  for (const FeatureLabel& f : kCatalog) {
    if (f.name == name) return f;
  }
  return std::nullopt;
}

std::string HumanFeatureName(std::string_view name) {
  auto f = FindFeatureLabel(name);
  if (!f) return std::string(name);
  return std::string(f->label) + " (" + std::string(f->unit) + ")";
}

}  // namespace verdict
