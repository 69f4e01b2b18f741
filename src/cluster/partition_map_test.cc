#include "cluster/partition_map.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace verdict::cluster {
namespace {

std::map<std::string, size_t> Holdings(const PartitionMap& map) {
  std::map<std::string, size_t> count;
  for (const auto& owner : map) ++count[owner.node];
  return count;
}

void ExpectBalanced(const PartitionMap& map, const std::vector<std::string>& nodes) {
  const auto count = Holdings(map);
  const size_t base = map.size() / nodes.size();
  for (const auto& node : nodes) {
    const size_t held = count.count(node) ? count.at(node) : 0;
    EXPECT_GE(held, base) << node;
    EXPECT_LE(held, base + 1) << node;
  }
  for (const auto& [node, held] : count) {
    EXPECT_TRUE(std::set<std::string>(nodes.begin(), nodes.end()).count(node))
        << "partition owned by " << node << ", not live";
  }
}

TEST(PartitionOfTest, StableAndInRange) {
  // Fixed values: an account's partition decides where its state lives in a running cluster,
  // so it may never change between versions.
  EXPECT_EQ(PartitionOf("dev", "ACC-1", 64), 1u);
  EXPECT_EQ(PartitionOf("bank-a", "DE89370400440532013000", 64), 2u);
  EXPECT_EQ(PartitionOf("", "", 1024), 507u);
  std::vector<int> per_partition(64);
  for (int i = 0; i < 64'000; ++i) {
    const uint32_t p = PartitionOf("dev", "ACC-" + std::to_string(i), 64);
    ASSERT_LT(p, 64u);
    ++per_partition[p];
  }
  for (int count : per_partition) {  // 1,000 expected each; a bad hash piles them up
    EXPECT_GT(count, 800);
    EXPECT_LT(count, 1200);
  }
}

TEST(PartitionOfTest, TenantAndAccountDoNotRunTogether) {
  int differ = 0;
  for (uint32_t parts : {7u, 64u, 1024u}) {
    if (PartitionOf("ab", "c", parts) != PartitionOf("a", "bc", parts)) ++differ;
  }
  EXPECT_GT(differ, 0);
}

TEST(SingleOwnerTest, SmallestLiveIdTakesEverythingAndKeepsIt) {
  const PartitionMap empty(8);
  const PartitionMap first = SingleOwner(empty, {"n2", "n1"}, 3);
  for (const PartitionOwner& owner : first) EXPECT_EQ(owner, (PartitionOwner{"n1", 3}));
  // A node joining with a smaller id does not take over a live owner.
  EXPECT_EQ(SingleOwner(first, {"n0", "n1", "n2"}, 4), first);
  // The owner gone: the smallest live id takes every partition at the new epoch.
  const PartitionMap moved = SingleOwner(first, {"n2", "n0"}, 4);
  for (const PartitionOwner& owner : moved) EXPECT_EQ(owner, (PartitionOwner{"n0", 4}));
  EXPECT_EQ(SingleOwner(first, {}, 9), first);
}

TEST(SingleOwnerTest, SpreadMapIsGatheredOnPartitionZerosLiveOwner) {
  const PartitionMap spread = Rebalance(PartitionMap(6), {"a", "b"}, 1);
  const std::string holder = spread[0].node;
  const PartitionMap gathered = SingleOwner(spread, {"a", "b"}, 2);
  for (size_t p = 0; p < gathered.size(); ++p) {
    EXPECT_EQ(gathered[p].node, holder);
    // Only the partitions that moved get the new epoch.
    EXPECT_EQ(gathered[p].epoch, spread[p].node == holder ? spread[p].epoch : 2u);
  }
}

TEST(RebalanceTest, FirstAssignmentSpreadsEvenly) {
  const PartitionMap empty(64);
  const PartitionMap map = Rebalance(empty, {"n1", "n0", "n2"}, 5);
  ExpectBalanced(map, {"n0", "n1", "n2"});
  for (const auto& owner : map) EXPECT_EQ(owner.epoch, 5u);
}

TEST(RebalanceTest, OrderOfNodesDoesNotMatter) {
  const PartitionMap empty(10);
  EXPECT_EQ(Rebalance(empty, {"a", "b", "c"}, 1), Rebalance(empty, {"c", "a", "b"}, 1));
}

TEST(RebalanceTest, JoinMovesOnlyWhatBalanceNeeds) {
  const PartitionMap two = Rebalance(PartitionMap(64), {"n0", "n1"}, 1);
  const PartitionMap three = Rebalance(two, {"n0", "n1", "n2"}, 2);
  ExpectBalanced(three, {"n0", "n1", "n2"});
  // n2 needs 21 or 22 of 64; nothing else moves.
  EXPECT_EQ(CountMoves(two, three), Holdings(three).at("n2"));
  for (size_t p = 0; p < three.size(); ++p) {
    if (three[p].node == two[p].node) {
      EXPECT_EQ(three[p].epoch, two[p].epoch) << "an unmoved partition keeps its epoch";
    } else {
      EXPECT_EQ(three[p].node, "n2");
      EXPECT_EQ(three[p].epoch, 2u);
    }
  }
}

TEST(RebalanceTest, LeaveMovesOnlyTheLeaversPartitions) {
  const PartitionMap three = Rebalance(PartitionMap(64), {"n0", "n1", "n2"}, 1);
  const PartitionMap two = Rebalance(three, {"n0", "n2"}, 2);
  ExpectBalanced(two, {"n0", "n2"});
  EXPECT_EQ(CountMoves(three, two), Holdings(three).at("n1"));
  for (size_t p = 0; p < two.size(); ++p) {
    if (three[p].node != "n1") {
      EXPECT_EQ(two[p], three[p]);
    }
  }
}

TEST(RebalanceTest, StableWhenNothingChanged) {
  const PartitionMap map = Rebalance(PartitionMap(64), {"n0", "n1", "n2"}, 1);
  EXPECT_EQ(Rebalance(map, {"n2", "n1", "n0"}, 9), map);
}

TEST(RebalanceTest, OneNodeOwnsEverything) {
  const PartitionMap map = Rebalance(PartitionMap(8), {"solo"}, 3);
  EXPECT_EQ(Holdings(map).at("solo"), 8u);
}

TEST(RebalanceTest, NoLiveNodeKeepsTheMap) {
  const PartitionMap map = Rebalance(PartitionMap(8), {"n0"}, 1);
  EXPECT_EQ(Rebalance(map, {}, 2), map);
}

TEST(RebalanceTest, EpochsOnlyGrowOverManyChanges) {
  PartitionMap map(64);
  const std::vector<std::vector<std::string>> steps = {
      {"a"}, {"a", "b"}, {"a", "b", "c"}, {"b", "c"}, {"b", "c", "d", "e"}, {"e"}, {"a", "e"}};
  uint64_t epoch = 0;
  for (const auto& nodes : steps) {
    const PartitionMap next = Rebalance(map, nodes, ++epoch);
    ExpectBalanced(next, nodes);
    for (size_t p = 0; p < next.size(); ++p) EXPECT_GE(next[p].epoch, map[p].epoch);
    map = next;
  }
}

TEST(OwnerCodecTest, RoundTripsAndRefusesBadText) {
  const PartitionOwner owner{"node-7", 12345};
  auto decoded = DecodeOwner(EncodeOwner(owner));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, owner);
  for (const char* bad : {"", "node", " 5", "node x", "node 5x", "node -1", "node "}) {
    auto refused = DecodeOwner(bad);
    EXPECT_FALSE(refused.ok()) << bad;
  }
}

}  // namespace
}  // namespace verdict::cluster
