// Helpers for the feature tests: build transactions on a manual clock and run them through a
// FeatureStream. Test-only.
#pragma once

#include <string>

#include "common/clock.h"
#include "core/currency.h"
#include "core/transaction.h"
#include "features/feature_stream.h"

namespace verdict::testing_util {

inline Transaction Txn(const ManualClock& clock, const std::string& from, const std::string& to,
                       int64_t cents, const char* currency = "USD") {
  Transaction t;
  t.transaction_id = from + "->" + to + "@" + std::to_string(clock.NowMicros());
  t.timestamp_us = clock.NowMicros();
  t.amount = Money(cents, *FindCurrency(currency));
  t.sender.ref.account = from;
  t.receiver.ref.account = to;
  return t;
}

inline FeatureVector Process(FeatureStream& stream, const Transaction& t) {
  FeatureVector f{};
  stream.Process(t, &f);
  return f;
}

}  // namespace verdict::testing_util
