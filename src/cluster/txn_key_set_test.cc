#include "cluster/txn_key_set.h"

#include <gtest/gtest.h>

#include <string>

namespace verdict::cluster {
namespace {

TEST(TxnKeySetTest, HoldsWhatWasInsertedThroughGrowth) {
  TxnKeySet set;
  EXPECT_FALSE(set.MayContain("bank-a\0tx-1"));
  for (int i = 0; i < 10'000; ++i) set.Insert("bank-a/tx-" + std::to_string(i));
  set.Insert("bank-a/tx-7");  // again: no second entry
  EXPECT_EQ(set.size(), 10'000u);
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_TRUE(set.MayContain("bank-a/tx-" + std::to_string(i))) << i;
  }
  int false_positives = 0;
  for (int i = 10'000; i < 20'000; ++i) {
    false_positives += set.MayContain("bank-a/tx-" + std::to_string(i)) ? 1 : 0;
  }
  EXPECT_EQ(false_positives, 0);  // only a 64-bit hash collision could give one
}

}  // namespace
}  // namespace verdict::cluster
