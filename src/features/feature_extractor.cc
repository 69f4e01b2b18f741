#include "features/feature_extractor.h"

#include <algorithm>

namespace verdict {

void ExtractFeatures(const Transaction& txn, AccountState& sender, AccountState& receiver,
                     FeatureVector* out) {
  FeatureVector& f = *out;
  SlidingWindows::Stats stats[2];
  f[kAmount] = txn.amount.ToMajor();
  sender.sent.Query(txn.timestamp_us, stats);
  f[kSenderOutCount1h] = static_cast<double>(stats[0].count);
  f[kSenderOutSum1h] = stats[0].sum;
  f[kSenderOutCount24h] = static_cast<double>(stats[1].count);
  f[kSenderOutSum24h] = stats[1].sum;
  receiver.received.Query(txn.timestamp_us, stats);
  f[kReceiverInCount1h] = static_cast<double>(stats[0].count);
  f[kReceiverInSum1h] = stats[0].sum;
  f[kReceiverInCount24h] = static_cast<double>(stats[1].count);
  f[kReceiverInSum24h] = stats[1].sum;
}

void ApplyTransaction(const Transaction& txn, AccountState& sender, AccountState& receiver) {
  const double amount = txn.amount.ToMajor();
  sender.sent.Add(txn.timestamp_us, amount);
  receiver.received.Add(txn.timestamp_us, amount);
  for (AccountState* s : {&sender, &receiver}) {
    s->first_seen_us = std::min(s->first_seen_us, txn.timestamp_us);
    s->last_seen_us = std::max(s->last_seen_us, txn.timestamp_us);
  }
}

}  // namespace verdict
