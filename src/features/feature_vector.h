// The feature schema: every feature's index and name, and the fixed-size vector of values one
// transaction gets. Immutable schema (static); FeatureVector is a value type.
// docs/features.md defines each feature (window, units); change both together and bump
// kFeatureSchemaVersion whenever a name, order or definition changes.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace verdict {

// X(enumerator, "name"), in vector order.
#define VERDICT_FEATURE_LIST(X)                                          \
  /* context */                                                          \
  X(kAmount, "amount")                                                   \
  X(kAmountUsd, "amount_usd")                                            \
  X(kAmountIsRound, "amount_is_round")                                   \
  X(kAmountNearThreshold, "amount_near_threshold")                       \
  X(kCrossBorder, "cross_border")                                        \
  X(kSenderHighRiskCountry, "sender_high_risk_country")                  \
  X(kReceiverHighRiskCountry, "receiver_high_risk_country")              \
  X(kChannelCode, "channel_code")                                        \
  X(kTypeCode, "type_code")                                              \
  X(kHourOfDay, "hour_of_day")                                           \
  X(kDayOfWeek, "day_of_week")                                           \
  X(kIsWeekend, "is_weekend")                                            \
  X(kLateEvent, "late_event")                                            \
  /* sender velocity (outgoing) */                                       \
  X(kSenderOutCount1h, "sender_out_count_1h")                            \
  X(kSenderOutSum1h, "sender_out_sum_1h")                                \
  X(kSenderOutMax1h, "sender_out_max_1h")                                \
  X(kSenderOutCount24h, "sender_out_count_24h")                          \
  X(kSenderOutSum24h, "sender_out_sum_24h")                              \
  X(kSenderOutMax24h, "sender_out_max_24h")                              \
  X(kSenderOutCount7d, "sender_out_count_7d")                            \
  X(kSenderOutSum7d, "sender_out_sum_7d")                                \
  X(kSenderOutMax7d, "sender_out_max_7d")                                \
  X(kSenderOutCount30d, "sender_out_count_30d")                          \
  X(kSenderOutSum30d, "sender_out_sum_30d")                              \
  X(kSenderOutMax30d, "sender_out_max_30d")                              \
  /* sender amount against own history */                                \
  X(kSenderAmountRatioMean30d, "sender_amount_ratio_mean_30d")           \
  X(kSenderAmountRatioMax30d, "sender_amount_ratio_max_30d")             \
  X(kSenderAmountLogZscore, "sender_amount_log_zscore")                  \
  /* sender structuring */                                               \
  X(kSenderNearThresholdCount24h, "sender_near_threshold_count_24h")     \
  X(kSenderNearThresholdSum24h, "sender_near_threshold_sum_24h")         \
  X(kSenderNearThresholdCount7d, "sender_near_threshold_count_7d")       \
  X(kSenderRoundCount24h, "sender_round_count_24h")                      \
  /* counterparties: fan-out */                                          \
  X(kPairFirstTime, "pair_first_time")                                   \
  X(kSenderDistinctReceivers24h, "sender_distinct_receivers_24h")        \
  X(kSenderDistinctReceivers7d, "sender_distinct_receivers_7d")          \
  X(kSenderDistinctReceivers30d, "sender_distinct_receivers_30d")        \
  X(kSenderNewReceiverShare7d, "sender_new_receiver_share_7d")           \
  /* movement */                                                         \
  X(kSenderInCount24h, "sender_in_count_24h")                            \
  X(kSenderInSum24h, "sender_in_sum_24h")                                \
  X(kSenderPassThroughRatio24h, "sender_pass_through_ratio_24h")         \
  X(kSenderHoursSinceLastIn, "sender_hours_since_last_in")               \
  X(kSenderHoursSinceLastOut, "sender_hours_since_last_out")             \
  /* sender dormancy and age */                                          \
  X(kSenderDaysSinceLastActivity, "sender_days_since_last_activity")     \
  X(kSenderAccountAgeDays, "sender_account_age_days")                    \
  /* receiver velocity (incoming) */                                     \
  X(kReceiverInCount1h, "receiver_in_count_1h")                          \
  X(kReceiverInSum1h, "receiver_in_sum_1h")                              \
  X(kReceiverInMax1h, "receiver_in_max_1h")                              \
  X(kReceiverInCount24h, "receiver_in_count_24h")                        \
  X(kReceiverInSum24h, "receiver_in_sum_24h")                            \
  X(kReceiverInMax24h, "receiver_in_max_24h")                            \
  X(kReceiverInCount7d, "receiver_in_count_7d")                          \
  X(kReceiverInSum7d, "receiver_in_sum_7d")                              \
  X(kReceiverInMax7d, "receiver_in_max_7d")                              \
  X(kReceiverInCount30d, "receiver_in_count_30d")                        \
  X(kReceiverInSum30d, "receiver_in_sum_30d")                            \
  X(kReceiverInMax30d, "receiver_in_max_30d")                            \
  /* receiver amount against own history */                              \
  X(kReceiverAmountRatioMean30d, "receiver_amount_ratio_mean_30d")       \
  X(kReceiverAmountRatioMax30d, "receiver_amount_ratio_max_30d")         \
  X(kReceiverAmountLogZscore, "receiver_amount_log_zscore")              \
  /* receiver structuring */                                             \
  X(kReceiverNearThresholdCount24h, "receiver_near_threshold_count_24h") \
  X(kReceiverNearThresholdSum24h, "receiver_near_threshold_sum_24h")     \
  X(kReceiverNearThresholdCount7d, "receiver_near_threshold_count_7d")   \
  /* counterparties: fan-in */                                           \
  X(kReceiverDistinctSenders24h, "receiver_distinct_senders_24h")        \
  X(kReceiverDistinctSenders7d, "receiver_distinct_senders_7d")          \
  X(kReceiverDistinctSenders30d, "receiver_distinct_senders_30d")        \
  X(kReceiverNewSenderShare7d, "receiver_new_sender_share_7d")           \
  /* receiver movement, dormancy and age */                              \
  X(kReceiverOutSum24h, "receiver_out_sum_24h")                          \
  X(kReceiverHoursSinceLastOut, "receiver_hours_since_last_out")         \
  X(kReceiverDaysSinceLastActivity, "receiver_days_since_last_activity") \
  X(kReceiverAccountAgeDays, "receiver_account_age_days")                \
  /* cycles */                                                           \
  X(kClosesCycle2, "closes_cycle_2")                                     \
  X(kClosesCycle3, "closes_cycle_3")                                     \
  X(kClosesCycle4, "closes_cycle_4")                                     \
  /* counterparty risk (2 hops) */                                       \
  X(kSenderUnusualTransfers, "sender_unusual_transfers")                 \
  X(kReceiverUnusualTransfers, "receiver_unusual_transfers")             \
  X(kSenderPeerUnusualMax, "sender_peer_unusual_max")                    \
  X(kReceiverPeerUnusualMax, "receiver_peer_unusual_max")

enum FeatureIndex : size_t {
#define VERDICT_FEATURE_ENUM(id, name) id,
  VERDICT_FEATURE_LIST(VERDICT_FEATURE_ENUM)
#undef VERDICT_FEATURE_ENUM
      kFeatureCount,
};

// Recorded in every model and decision so a reader knows what the values mean.
inline constexpr std::string_view kFeatureSchemaVersion = "features-3";

inline constexpr std::array<std::string_view, kFeatureCount> kFeatureNames = {
#define VERDICT_FEATURE_NAME(id, name) name,
    VERDICT_FEATURE_LIST(VERDICT_FEATURE_NAME)
#undef VERDICT_FEATURE_NAME
};

using FeatureVector = std::array<double, kFeatureCount>;

// Codes of channel_code and type_code (index in these lists; 0 = not given, last = other).
inline constexpr std::array<std::string_view, 12> kChannelCodes = {
    "",       "wire",   "ach",    "sepa",   "card",     "cash",
    "cheque", "online", "mobile", "crypto", "internal", "other"};
inline constexpr std::array<std::string_view, 10> kTypeCodes = {
    "",         "transfer", "payment", "salary",       "cash_in",
    "cash_out", "debit",    "refund",  "reinvestment", "other"};

}  // namespace verdict
