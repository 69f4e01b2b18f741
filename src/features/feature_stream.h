// FeatureStream: replays transactions in order through an AccountStore and a FeatureExtractor,
// exactly as the engine does per decision (extract under the stripes, then apply), for
// training, export and tests. Owns its store; Process is thread-safe, but feature values are
// reproducible only when transactions are processed in one fixed order.
#pragma once

#include <memory>

#include "core/transaction.h"
#include "features/account_store.h"
#include "features/feature_extractor.h"
#include "features/feature_vector.h"

namespace verdict {

class FeatureStream {
 public:
  explicit FeatureStream(const FeatureExtractor& extractor, size_t stripes = 64)
      : extractor_(extractor), store_(stripes) {}

  // Features of `txn` as of its timestamp, then applies it.
  void Process(const Transaction& txn, FeatureVector* out) {
    store_.WithAccounts(txn.sender.ref.account, txn.receiver.ref.account,
                        [&](AccountState& sender, AccountState& receiver) {
                          extractor_.Extract(txn, sender, receiver, out);
                          extractor_.Apply(txn, sender, receiver);
                        });
  }

  const AccountStore& store() const { return store_; }
  AccountStore& store() { return store_; }
  const FeatureExtractor& extractor() const { return extractor_; }

 private:
  const FeatureExtractor& extractor_;
  AccountStore store_;
};

}  // namespace verdict
