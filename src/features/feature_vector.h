// The skeleton's feature schema: names, and a fixed-size vector of values per transaction.
// Immutable schema (static); FeatureVector is a value type.
#pragma once

#include <array>
#include <string_view>

namespace verdict {

enum FeatureIndex : size_t {
  kAmount,
  kSenderOutCount1h,
  kSenderOutSum1h,
  kSenderOutCount24h,
  kSenderOutSum24h,
  kReceiverInCount1h,
  kReceiverInSum1h,
  kReceiverInCount24h,
  kReceiverInSum24h,
  kFeatureCount,
};

// Recorded in every decision so a journal reader knows what the values mean.
inline constexpr std::string_view kFeatureSchemaVersion = "skeleton-1";

inline constexpr std::array<std::string_view, kFeatureCount> kFeatureNames = {
    "amount",
    "sender_out_count_1h",
    "sender_out_sum_1h",
    "sender_out_count_24h",
    "sender_out_sum_24h",
    "receiver_in_count_1h",
    "receiver_in_sum_1h",
    "receiver_in_count_24h",
    "receiver_in_sum_24h",
};

using FeatureVector = std::array<double, kFeatureCount>;

}  // namespace verdict
