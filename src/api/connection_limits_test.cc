// ConnectionLimits: an address or tenant at its limit is refused a slot, others are not, and a
// slot comes back when its claim is dropped or moved out of.
#include "api/connection_limits.h"

#include <gtest/gtest.h>

#include <vector>

namespace verdict {
namespace {

TEST(ConnectionLimitsTest, AnAddressAtItsLimitLeavesRoomForOthers) {
  ConnectionLimits limits(/*per_address=*/3, /*per_tenant=*/0);
  std::vector<ConnectionLimits::Claim> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(limits.ClaimAddress("127.0.0.1"));
    EXPECT_TRUE(held.back().held());
  }
  EXPECT_FALSE(limits.ClaimAddress("127.0.0.1").held());
  EXPECT_EQ(limits.HeldByAddress("127.0.0.1"), 3u);
  ConnectionLimits::Claim other = limits.ClaimAddress("127.0.0.2");
  EXPECT_TRUE(other.held());
  EXPECT_EQ(other.key(), "127.0.0.2");

  held.pop_back();  // one connection closes: its slot is free again
  EXPECT_EQ(limits.HeldByAddress("127.0.0.1"), 2u);
  ConnectionLimits::Claim again = limits.ClaimAddress("127.0.0.1");
  EXPECT_TRUE(again.held());
  held.clear();
  again = ConnectionLimits::Claim();
  EXPECT_EQ(limits.HeldByAddress("127.0.0.1"), 0u);
}

TEST(ConnectionLimitsTest, TenantsCountApartFromAddresses) {
  ConnectionLimits limits(/*per_address=*/1, /*per_tenant=*/2);
  ConnectionLimits::Claim a = limits.ClaimTenant("bank-a");
  ConnectionLimits::Claim b = limits.ClaimTenant("bank-a");
  EXPECT_TRUE(a.held() && b.held());
  EXPECT_FALSE(limits.ClaimTenant("bank-a").held());
  EXPECT_TRUE(limits.ClaimTenant("bank-b").held());
  EXPECT_TRUE(limits.ClaimAddress("bank-a").held());  // another table
  EXPECT_EQ(limits.HeldByTenant("bank-a"), 2u);
}

TEST(ConnectionLimitsTest, MovedClaimsReleaseOnce) {
  ConnectionLimits limits(/*per_address=*/1, /*per_tenant=*/1);
  ConnectionLimits::Claim first = limits.ClaimAddress("::1");
  ConnectionLimits::Claim moved(std::move(first));
  EXPECT_FALSE(first.held());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_TRUE(moved.held());
  EXPECT_EQ(limits.HeldByAddress("::1"), 1u);
  moved = ConnectionLimits::Claim();
  EXPECT_EQ(limits.HeldByAddress("::1"), 0u);
  EXPECT_TRUE(limits.ClaimAddress("::1").held());
}

TEST(ConnectionLimitsTest, ZeroMeansNoLimit) {
  ConnectionLimits limits(/*per_address=*/0, /*per_tenant=*/0);
  std::vector<ConnectionLimits::Claim> held;
  for (int i = 0; i < 100; ++i) held.push_back(limits.ClaimAddress("10.0.0.1"));
  for (const auto& c : held) EXPECT_TRUE(c.held());
  EXPECT_EQ(limits.HeldByAddress("10.0.0.1"), 100u);
}

}  // namespace
}  // namespace verdict
