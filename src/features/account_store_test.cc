#include "features/account_store.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace verdict {
namespace {

TEST(AccountStoreTest, FindsTheSameStateAgainAcrossTableGrowth) {
  AccountStore store(2);
  // Mark each account's state with its index, through many table growths.
  for (int i = 0; i < 5000; ++i) {
    const std::string a = "acct-" + std::to_string(i);
    const std::string b = "acct-" + std::to_string(i + 1);
    store.WithAccounts(a, b, [&](AccountState& s, AccountState& r) {
      EXPECT_NE(&s, &r);
      s.set_first_seen_us(i);
      r.out().peers().PushBack(PeerEntry{static_cast<uint32_t>(i), 0, 0});
    });
  }
  EXPECT_EQ(store.AccountCount(), 5001u);
  for (int i = 1; i < 5000; ++i) {
    const std::string a = "acct-" + std::to_string(i);
    store.WithAccounts(a, a, [&](AccountState& s, AccountState& r) {
      EXPECT_EQ(&s, &r);  // a self-transfer names one state
      EXPECT_EQ(s.first_seen_us(), i);
      ASSERT_EQ(s.out().peers().size(), 1u);
      EXPECT_EQ(s.out().peers()[0].hash, static_cast<uint32_t>(i - 1));
    });
  }
  std::set<uint64_t> keys;
  store.ForEach([&](uint64_t key, const AccountState&) { keys.insert(key); });
  EXPECT_EQ(keys.size(), 5001u);
  EXPECT_EQ(keys.count(AccountStore::KeyOf("acct-17")), 1u);
}

TEST(AccountStoreTest, TwoNewAccountsInOneStripeBothSurvive) {
  AccountStore store(1);  // one stripe: the receiver's insert may trigger growth
  for (int i = 0; i < 200; ++i) {
    store.WithAccounts("s" + std::to_string(i), "r" + std::to_string(i),
                       [&](AccountState& s, AccountState& r) {
                         s.set_last_seen_us(2 * i);
                         r.set_last_seen_us(2 * i + 1);
                       });
  }
  for (int i = 0; i < 200; ++i) {
    store.WithAccounts("s" + std::to_string(i), "r" + std::to_string(i),
                       [&](AccountState& s, AccountState& r) {
                         EXPECT_EQ(s.last_seen_us(), 2 * i);
                         EXPECT_EQ(r.last_seen_us(), 2 * i + 1);
                       });
  }
}

TEST(AccountStoreTest, ConcurrentWritersLoseNoUpdate) {
  AccountStore store(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&store, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string a = "a" + std::to_string((i * 7 + t) % 50);
        const std::string b = "a" + std::to_string((i * 13 + 3 * t) % 50);
        store.WithAccounts(a, b, [](AccountState& s, AccountState& r) {
          s.out().recent().PushBack(RecentEvent{0, 1, 0});
          if (&s != &r) r.in().recent().PushBack(RecentEvent{0, 1, 0});
          if (s.out().recent().size() > 100) s.out().recent().clear();
        });
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_LE(store.AccountCount(), 50u);
  uint64_t received = 0;
  store.ForEach([&](uint64_t, const AccountState& s) { received += s.in().recent().size(); });
  uint64_t expected = 0;
  for (int t = 0; t < 4; ++t) {
    for (int i = 0; i < 2000; ++i) expected += (i * 7 + t) % 50 != (i * 13 + 3 * t) % 50;
  }
  EXPECT_EQ(received, expected);
}

}  // namespace
}  // namespace verdict
